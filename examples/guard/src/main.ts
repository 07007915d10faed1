// The guard provider's executable: the kernel launches it through go-plugin and, for each hook{}
// block of agent.hcl naming it, dials its HookSubscriberService on the same connection.
import { serve } from "harness-tool";
import { createGuardProvider } from "./gen/examples/guard/v1/guard_tool.js";
import { handlers } from "./handlers.js";

await serve(createGuardProvider(handlers));
