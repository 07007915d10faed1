// The filesystem provider's executable: the kernel launches it through go-plugin.
import { serve } from "harness-tool";
import { createFilesystemProvider } from "./gen/examples/filesystem/v1/filesystem_tool.js";
import { handlers } from "./handlers.js";

await serve(createFilesystemProvider(handlers, { allowedRoots: (config) => config.allowed_roots }));
