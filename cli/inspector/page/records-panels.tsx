// The bottom tabs: the history of calls (re-run, edit), the provider's stderr log lines at their
// host levels, and the kernel callbacks with the canned replies the inspector's kernel gives.
import { useState } from "preact/hooks";
import type {
  CallView,
  CallbackView,
  CannedRepliesView,
  HookCallView,
  Json,
  LogLineView,
  TreeAnswer,
} from "../protocol/page-protocol.js";
import { hookOutcomeText } from "./hook-panel.js";
import { api, ApiError } from "./inspector-api.js";
import { TreeAnswerView } from "./tree-answer.js";

function callState(call: CallView): string {
  if (!call.end) return "running";
  if (call.end.cancelled) return "cancelled";
  const terminal = call.events.find((e) => e.type === "result" || e.type === "error");
  return terminal?.type === "error" ? `error: ${terminal.category}` : terminal ? "result" : call.end.status;
}

/** What a history row's buttons do, for a tool call or a hook call. */
export interface HistoryActions<T> {
  readonly onShow: (item: T) => void;
  readonly onRerun: (item: T) => void;
  readonly onEdit: (item: T) => void;
}

function RowActions<T>({ item, actions }: { item: T; actions: HistoryActions<T> }) {
  return (
    <td class="row-actions">
      <div>
        <button type="button" class="small" onClick={() => actions.onShow(item)}>
          Show
        </button>
        <button type="button" class="small" onClick={() => actions.onEdit(item)}>
          Edit
        </button>
        <button type="button" class="small" onClick={() => actions.onRerun(item)}>
          Re-run
        </button>
      </div>
    </td>
  );
}

function CallRow({ call, actions }: { call: CallView; actions: HistoryActions<CallView> }) {
  return (
    <tr>
      <td>{new Date(call.startedAt).toLocaleTimeString()}</td>
      <td>
        <code>{call.tool}</code>
      </td>
      <td class="args">
        <code>{JSON.stringify(call.args)}</code>
      </td>
      <td>{callState(call)}</td>
      <td>{call.end ? `${call.end.durationMs} ms` : "…"}</td>
      <RowActions item={call} actions={actions} />
    </tr>
  );
}

function HookRow({ hook, actions }: { hook: HookCallView; actions: HistoryActions<HookCallView> }) {
  return (
    <tr class="hook-row">
      <td>{new Date(hook.startedAt).toLocaleTimeString()}</td>
      <td>
        hook <code>{hook.point}</code> {hook.mode}
      </td>
      <td class="args">
        <code>{JSON.stringify(hook.payload)}</code>
      </td>
      <td>{hookOutcomeText(hook)}</td>
      <td>{hook.durationMs !== undefined ? `${hook.durationMs} ms` : "…"}</td>
      <RowActions item={hook} actions={actions} />
    </tr>
  );
}

/** Every call of the session, tool calls and hook calls together, newest first. */
export function HistoryPanel({
  calls,
  hooks,
  onShow,
  onRerun,
  onEdit,
  hookActions,
}: {
  calls: readonly CallView[];
  hooks: readonly HookCallView[];
  hookActions: HistoryActions<HookCallView>;
} & HistoryActions<CallView>) {
  if (calls.length === 0 && hooks.length === 0) return <p class="note">No calls yet.</p>;
  const rows: ({ call: CallView } | { hook: HookCallView })[] = [
    ...calls.map((call) => ({ call })),
    ...hooks.map((hook) => ({ hook })),
  ];
  const startedAt = (row: (typeof rows)[number]) => ("call" in row ? row.call.startedAt : row.hook.startedAt);
  // Newest first; a stable sort keeps the order of equal times.
  const newestFirst = rows.reverse().sort((a, b) => startedAt(b) - startedAt(a));
  return (
    <table class="records" aria-label="history">
      <thead>
        <tr>
          <th>time</th>
          <th>tool</th>
          <th>arguments</th>
          <th>outcome</th>
          <th>duration</th>
          <th />
        </tr>
      </thead>
      <tbody>
        {newestFirst.map((row) =>
          "hook" in row ? (
            <HookRow key={row.hook.id} hook={row.hook} actions={hookActions} />
          ) : (
            <CallRow key={row.call.id} call={row.call} actions={{ onShow, onRerun, onEdit }} />
          ),
        )}
      </tbody>
    </table>
  );
}

const levels = ["trace", "debug", "info", "warn", "error"] as const;

/** The provider's stderr, as go-plugin's host logs it. */
export function LogsPanel({ logs }: { logs: readonly LogLineView[] }) {
  const [minimum, setMinimum] = useState<(typeof levels)[number]>("trace");
  const shown = logs.filter((l) => levels.indexOf(l.level) >= levels.indexOf(minimum));
  return (
    <div>
      <label class="inline">
        level at least{" "}
        <select value={minimum} onChange={(e) => setMinimum(e.currentTarget.value as (typeof levels)[number])}>
          {levels.map((l) => (
            <option key={l}>{l}</option>
          ))}
        </select>
      </label>
      {shown.length === 0 ? <p class="note">No stderr lines.</p> : null}
      <ol class="log-lines" aria-label="log lines">
        {shown.map((l) => (
          <li key={l.seq} class={`level-${l.level}`}>
            <span class="at">{(l.atMs / 1000).toFixed(3)}s</span>{" "}
            <span class={`badge level-${l.level}`}>{l.level}</span> {l.message}{" "}
            {Object.keys(l.fields).length > 0 ? <code class="fields">{JSON.stringify(l.fields)}</code> : null}
          </li>
        ))}
      </ol>
    </div>
  );
}

function RepliesEditor({ replies }: { replies: CannedRepliesView }) {
  const [texts, setTexts] = useState(() => ({
    emit: JSON.stringify(replies.emit, null, 2),
    runSession: JSON.stringify(replies.runSession, null, 2),
    countTokens: JSON.stringify(replies.countTokens, null, 2),
  }));
  const [message, setMessage] = useState<{ ok: boolean; text: string } | undefined>();
  const save = async (event: Event) => {
    event.preventDefault();
    const body: { -readonly [K in keyof CannedRepliesView]?: Json } = {};
    for (const name of ["emit", "runSession", "countTokens"] as const) {
      try {
        body[name] = JSON.parse(texts[name]) as Json;
      } catch (error) {
        setMessage({
          ok: false,
          text: `${name}: not JSON: ${(error as Error).message}`,
        });
        return;
      }
    }
    try {
      await api.replies(body);
      setMessage({
        ok: true,
        text: "The kernel answers with these replies from now on.",
      });
    } catch (error) {
      setMessage({
        ok: false,
        text: error instanceof ApiError ? error.message : String(error),
      });
    }
  };
  const labels = {
    emit: "Emit → EmitResult (empty id and sequence: numbered)",
    runSession: "RunSession → RunSessionResult",
    countTokens: "CountTokens → CountTokensResult",
  } as const;
  return (
    <form class="replies" onSubmit={save} aria-label="canned replies">
      <h3>Canned replies (protobuf JSON)</h3>
      <div class="replies-grid">
        {(["emit", "runSession", "countTokens"] as const).map((name) => (
          <label class="field" key={name}>
            <span class="field-name">{labels[name]}</span>
            <textarea
              name={`reply-${name}`}
              rows={6}
              value={texts[name]}
              onInput={(e) => setTexts({ ...texts, [name]: e.currentTarget.value })}
            />
          </label>
        ))}
      </div>
      <button type="submit">Save replies</button>
      {message ? <p class={message.ok ? "note" : "error-text"}>{message.text}</p> : null}
    </form>
  );
}

function EmitRender({ request }: { request: Json }) {
  const [answer, setAnswer] = useState<TreeAnswer | undefined>();
  const r = typeof request === "object" && request !== null && !Array.isArray(request) ? request : {};
  const text = typeof r["payloadText"] === "string" ? r["payloadText"] : undefined;
  const render = async () => {
    setAnswer(
      await api.render({
        schemaVersion: typeof r["schemaVersion"] === "string" ? r["schemaVersion"] : "",
        payload: text ?? (typeof r["payload"] === "string" ? r["payload"] : ""),
        encoding: text === undefined ? "base64" : "text",
      }),
    );
  };
  return (
    <div>
      <button type="button" class="small" onClick={() => void render()}>
        Render this payload
      </button>
      {answer ? <TreeAnswerView answer={answer} region="sidebar" /> : null}
    </div>
  );
}

/** KernelCallbackService calls as they arrive. */
export function CallbacksPanel({
  callbacks,
  replies,
}: {
  callbacks: readonly CallbackView[];
  replies: CannedRepliesView;
}) {
  return (
    <div>
      {callbacks.length === 0 ? (
        <p class="note">No kernel callbacks yet (Log, Emit, RunSession, CountTokens).</p>
      ) : null}
      <ol class="callbacks" aria-label="kernel callbacks">
        {callbacks.map((c) => (
          <li key={c.seq}>
            <details>
              <summary>
                <span class="at">{(c.atMs / 1000).toFixed(3)}s</span> <span class="badge">{c.method}</span>{" "}
                {summaryOf(c)}
              </summary>
              <h4>request</h4>
              <pre class="json">{JSON.stringify(c.request, null, 2)}</pre>
              {c.reply !== undefined ? (
                <>
                  <h4>reply</h4>
                  <pre class="json">{JSON.stringify(c.reply, null, 2)}</pre>
                </>
              ) : null}
              {c.method === "emit" ? <EmitRender request={c.request} /> : null}
            </details>
          </li>
        ))}
      </ol>
      <RepliesEditor replies={replies} />
    </div>
  );
}

function summaryOf(c: CallbackView): string {
  const r = typeof c.request === "object" && c.request !== null && !Array.isArray(c.request) ? c.request : {};
  if (c.method === "log") {
    const entry = r["entry"];
    return entry && typeof entry === "object" && !Array.isArray(entry)
      ? `${String(entry["level"] ?? "")} ${String(entry["message"] ?? "")}`
      : "";
  }
  if (c.method === "emit") return `${String(r["kind"] ?? "")} ${String(r["schemaVersion"] ?? "")}`;
  if (c.method === "runSession") return String(r["prompt"] ?? "");
  return "";
}

/** A Render form: a schema_version and a payload, for providers with renderers. */
export function RenderPanel() {
  const [schemaVersion, setSchemaVersion] = useState("v1");
  const [payload, setPayload] = useState("{}");
  const [answer, setAnswer] = useState<TreeAnswer | undefined>();
  return (
    <section class="panel" aria-label="render">
      <h2>Render</h2>
      <p class="note">
        Render draws a payload this provider emitted (Emit) under its schema_version, as the kernel asks for it.
      </p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void api.render({ schemaVersion, payload, encoding: "text" }).then(setAnswer);
        }}
      >
        <label class="field">
          <span class="field-name">schema_version</span>
          <input name="schema_version" value={schemaVersion} onInput={(e) => setSchemaVersion(e.currentTarget.value)} />
        </label>
        <label class="field">
          <span class="field-name">payload (text)</span>
          <textarea name="payload" rows={6} value={payload} onInput={(e) => setPayload(e.currentTarget.value)} />
        </label>
        <button type="submit">Render</button>
      </form>
      {answer ? <TreeAnswerView answer={answer} region="main chat" /> : null}
    </section>
  );
}
