// The task provider's executable: the kernel launches it through go-plugin.
import { serve } from "harness-tool";
import { createTaskProvider } from "./gen/examples/task/v1/task_tool.js";
import { handlers } from "./handlers.js";

await serve(createTaskProvider(handlers));
