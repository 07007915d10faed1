// The user provider's executable: the kernel launches it through go-plugin.
import { serve } from "harness-tool";
import { createUserProvider } from "./gen/examples/user/v1/user_tool.js";
import { handlers } from "./handlers.js";

await serve(createUserProvider(handlers));
