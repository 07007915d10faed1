// The web provider's executable: the kernel launches it through go-plugin.
import { serve } from "harness-tool";
import { createWebProvider } from "./gen/examples/web/v1/web_tool.js";
import { handlers } from "./handlers.js";

await serve(createWebProvider(handlers));
