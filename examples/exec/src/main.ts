// The exec provider's executable: the kernel launches it through go-plugin.
import { serve } from "harness-tool";
import { createExecProvider } from "./gen/examples/exec/v1/exec_tool.js";
import { handlers } from "./handlers.js";

await serve(createExecProvider(handlers, { allowedRoots: (config) => config.allowed_roots }));
