// The page's side of the inspector's HTTP API. Every URL is relative to the page's own address,
// which carries the token, so no request can go out without it.
import type {
  CallView,
  CannedRepliesView,
  ConfigureAnswer,
  ConfigureRequestBody,
  HookCallView,
  HookRequestBody,
  InvokeRequestBody,
  Json,
  RestartAnswerView,
  StreamMessage,
  TreeAnswer,
} from "../protocol/page-protocol.js";

/** An answer of the server that is not the expected one. */
export class ApiError extends Error {
  override readonly name = "ApiError";
}

async function post<T>(path: string, body: unknown): Promise<T> {
  const response = await fetch(path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const value = (await response.json().catch(() => ({ error: `HTTP ${response.status}` }))) as { error?: string };
  if (!response.ok) throw new ApiError(value.error ?? `HTTP ${response.status}`);
  return value as T;
}

/** The inspector's actions. */
export const api = {
  invoke: (body: InvokeRequestBody) => post<CallView>("api/invoke", body),
  cancel: (id: string) => post<{ ok: true }>("api/cancel", { id }),
  hook: (body: HookRequestBody) => post<HookCallView>("api/hook", body),
  preview: (body: InvokeRequestBody) => post<TreeAnswer>("api/preview", body),
  render: (body: { schemaVersion: string; payload: string; encoding: "text" | "base64" }) =>
    post<TreeAnswer>("api/render", body),
  configure: (body: ConfigureRequestBody) => post<ConfigureAnswer>("api/configure", body),
  replies: (body: { [K in keyof CannedRepliesView]?: Json }) => post<CannedRepliesView>("api/replies", body),
  restart: () => post<RestartAnswerView>("api/restart", {}),
};

/** Follows the event stream; EventSource reconnects by itself and the server starts with a snapshot. */
export function followEvents(
  onMessage: (message: StreamMessage) => void,
  onConnection: (connected: boolean) => void,
): () => void {
  const source = new EventSource("events");
  source.onopen = () => onConnection(true);
  source.onerror = () => onConnection(false);
  source.onmessage = (event: MessageEvent<string>) => onMessage(JSON.parse(event.data) as StreamMessage);
  return () => source.close();
}
