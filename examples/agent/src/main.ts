// The agent provider's executable: the kernel launches it through go-plugin.
import { serve } from "harness-tool";
import { createAgentProvider } from "./gen/examples/agent/v1/agent_tool.js";
import { handlers } from "./handlers.js";

await serve(createAgentProvider(handlers));
