// The search provider's executable: the kernel launches it through go-plugin.
import { serve } from "harness-tool";
import { createSearchProvider } from "./gen/examples/search/v1/search_tool.js";
import { handlers } from "./handlers.js";

await serve(createSearchProvider(handlers, { allowedRoots: (config) => config.allowed_roots }));
