// The web provider's executable: the kernel launches it through go-plugin. Its endpoint must be an
// http(s) URL, so `harness-tool check` needs a config (its sample "example" is refused at Configure):
// `harness-tool check examples/web/src/main.ts --config examples/web/check-config.json`, whose
// endpoint is a loopback port nothing listens on (web_search ends in a retryable execution_failed).
import { configError, serve } from "harness-tool";
import { createWebProvider, type WebConfig } from "./gen/examples/web/v1/web_tool.js";
import { handlers } from "./handlers.js";

/**
 * The endpoint must be an http(s) URL: a typo in the provider's block is refused at Configure,
 * naming `endpoint`, instead of failing the model's every search with `unknown: Invalid URL`.
 */
function configure(config: Pick<WebConfig, "endpoint">): void {
  let url: URL;
  try {
    url = new URL(config.endpoint);
  } catch {
    throw configError(
      "endpoint",
      `${JSON.stringify(config.endpoint)} is not a URL: give the search API's http or https address`,
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw configError("endpoint", `must be an http or https URL, not ${url.protocol}`);
}

await serve(createWebProvider(handlers, { configure }));
