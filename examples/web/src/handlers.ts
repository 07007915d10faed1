// web_search against a configured search API and web_fetch limited to allowed domains, both GET.
// The API key is a sensitive config field: it is never put into a result or an error message.
import { ToolError } from "harness-tool";
import type { WebHandlers } from "./gen/examples/web/v1/web_tool.js";

/** True when `host` is `domain` or one of its subdomains. */
export function domainAllowed(host: string, domains: readonly string[]): boolean {
  const h = host.toLowerCase();
  return domains.some((d) => {
    const domain = d.toLowerCase().replace(/^\./, "");
    return h === domain || h.endsWith(`.${domain}`);
  });
}

/** The web provider's handlers. */
export const handlers: WebHandlers = {
  async webSearch(input, context) {
    const count = Math.min(20, Math.max(1, input.count ?? 5));
    // Configure refused an endpoint that is not an http(s) URL (main.ts).
    const url = new URL(context.config.endpoint);
    url.searchParams.set("q", input.query);
    url.searchParams.set("count", String(count));
    const response = await fetch(url, {
      headers: { authorization: `Bearer ${context.config.api_key}` },
      signal: context.signal,
    }).catch((error: unknown) => {
      if (context.signal.aborted) throw error;
      // No answer at all (refused, unresolvable, reset): the search API is down or out of reach.
      const why = (error as { cause?: { code?: unknown } }).cause?.code ?? (error as Error).message;
      throw new ToolError(
        "execution_failed",
        `web_search: the search API at ${url.host} could not be reached (${String(why)})`,
        { retryable: true },
      );
    });
    if (response.status === 401 || response.status === 403)
      throw new ToolError("permission_denied", `web_search: the search API refused the key (HTTP ${response.status})`);
    if (!response.ok)
      throw new ToolError("execution_failed", `web_search: the search API answered HTTP ${response.status}`, {
        retryable: response.status >= 500,
      });
    const body = (await response.json()) as { results?: { title?: unknown; url?: unknown; snippet?: unknown }[] };
    const results = (body.results ?? [])
      .slice(0, count)
      .map((r) => ({ title: String(r.title ?? ""), url: String(r.url ?? ""), snippet: String(r.snippet ?? "") }));
    return { results };
  },

  async webFetch(input, context) {
    let url: URL;
    try {
      url = new URL(input.url);
    } catch {
      throw new ToolError("invalid_arguments", `web_fetch: ${JSON.stringify(input.url)} is not a URL`);
    }
    if (url.protocol !== "http:" && url.protocol !== "https:")
      throw new ToolError("invalid_arguments", "web_fetch: only http and https URLs are fetched");
    if (!domainAllowed(url.hostname, context.config.allowed_domains ?? []))
      throw new ToolError("permission_denied", `web_fetch: ${url.hostname} is not on the allowed domains`);
    const response = await fetch(url, { method: "GET", redirect: "follow", signal: context.signal });
    const final = new URL(response.url || url.href);
    if (!domainAllowed(final.hostname, context.config.allowed_domains ?? []))
      throw new ToolError(
        "permission_denied",
        `web_fetch: the page redirected to ${final.hostname}, which is not on the allowed domains`,
      );
    const max = context.config.max_bytes ?? 512 * 1024;
    const bytes = new Uint8Array(await response.arrayBuffer());
    return {
      url: final.href,
      status: response.status,
      content_type: response.headers.get("content-type") ?? "",
      body: new TextDecoder().decode(bytes.subarray(0, max)),
      truncated: bytes.length > max,
    };
  },
};
