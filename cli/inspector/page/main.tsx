// The inspector page: the provider's identity, its tools (each with a form from its input_schema,
// Preview and Invoke), Configure, Render, Hooks (when the provider advertises hook points), and the
// history, log and kernel-callback tabs.
import { render } from "preact";
import { useEffect, useReducer, useState } from "preact/hooks";
import type { CallView, InspectorSnapshot, ToolView, TreeAnswer } from "../protocol/page-protocol.js";
import { CallPanel } from "./call-panel.js";
import { ConfigPanel } from "./config-panel.js";
import { useHooksView } from "./hook-panel.js";
import { api, ApiError, followEvents } from "./inspector-api.js";
import { reduce } from "./inspector-state.js";
import { CallbacksPanel, HistoryPanel, LogsPanel, RenderPanel } from "./records-panels.js";
import { formArguments, initialValue, SchemaForm, type FormValue } from "./schema-form.js";
import { TreeAnswerView } from "./tree-answer.js";
import "./inspector.css";

type View =
  | { readonly kind: "tool"; readonly name: string }
  | { readonly kind: "configure" }
  | { readonly kind: "render" }
  | { readonly kind: "hooks" };

function Badges({ tool }: { tool: ToolView }) {
  return (
    <span class="badges">
      <span class={`badge kind-${tool.kind}`}>{tool.kind}</span>
      <span class={`badge risk-${tool.risk}`}>{tool.risk}</span>
      {tool.streaming ? <span class="badge">streaming</span> : null}
    </span>
  );
}

function ToolFacts({ tool }: { tool: ToolView }) {
  const facts: [string, string][] = [
    ["kind", tool.kind],
    ["risk", tool.risk],
    ["streaming", tool.streaming ? "yes" : "no"],
    ["concurrency", tool.concurrency],
    ["timeout", tool.timeout],
    ["idempotent", tool.idempotent ? "yes" : "no"],
    ["terminates_turn", tool.terminatesTurn ? "yes" : "no"],
  ];
  return (
    <dl class="facts" aria-label="tool facts">
      {facts.map(([k, v]) => (
        <div key={k}>
          <dt>{k}</dt>
          <dd>{v}</dd>
        </div>
      ))}
    </dl>
  );
}

interface ToolPanelProps {
  readonly tool: ToolView;
  readonly snapshot: InspectorSnapshot;
  readonly form: FormValue;
  readonly onForm: (form: FormValue) => void;
  readonly workingDirectory: string;
  readonly onWorkingDirectory: (dir: string) => void;
  readonly shownCallId: string | undefined;
  readonly onInvoked: (call: CallView) => void;
}

/** The tool's answers: the last Preview, and the call shown (the last one, or the one chosen in the history). */
function ToolOutput({
  tool,
  snapshot,
  preview,
  call,
}: {
  tool: ToolView;
  snapshot: InspectorSnapshot;
  preview: TreeAnswer | undefined;
  call: CallView | undefined;
}) {
  return (
    <div class="tool-output">
      {preview ? (
        <div class="preview" aria-label="preview">
          <h3>Preview</h3>
          <TreeAnswerView answer={preview} region="main chat" />
        </div>
      ) : null}
      {call ? (
        <CallPanel key={call.id} call={call} identity={snapshot.identity} onCancel={() => void api.cancel(call.id)} />
      ) : null}
      {!preview && !call ? (
        <p class="note">
          Fill the form and Invoke
          {tool.preview === true ? ", or Preview what the call would do" : ""}; the stream shows here as it arrives.
        </p>
      ) : null}
    </div>
  );
}

function ToolPanel({
  tool,
  snapshot,
  form,
  onForm,
  workingDirectory,
  onWorkingDirectory,
  shownCallId,
  onInvoked,
}: ToolPanelProps) {
  const [preview, setPreview] = useState<TreeAnswer | undefined>();
  const [failure, setFailure] = useState<string | undefined>();
  const call =
    snapshot.calls.find((c) => c.id === shownCallId && c.tool === tool.name) ??
    [...snapshot.calls].reverse().find((c) => c.tool === tool.name);
  const args = () => {
    const parsed = formArguments(form);
    if (!parsed.ok) setFailure(parsed.message);
    else setFailure(undefined);
    return parsed.ok ? parsed.value : undefined;
  };
  const invoke = async (event: Event) => {
    event.preventDefault();
    const value = args();
    if (value === undefined) return;
    try {
      onInvoked(await api.invoke({ tool: tool.name, args: value, workingDirectory }));
    } catch (error) {
      setFailure(error instanceof ApiError ? error.message : String(error));
    }
  };
  const runPreview = async () => {
    const value = args();
    if (value === undefined) return;
    try {
      setPreview(await api.preview({ tool: tool.name, args: value, workingDirectory }));
    } catch (error) {
      setFailure(error instanceof ApiError ? error.message : String(error));
    }
  };
  return (
    <section class="panel" aria-label={`tool ${tool.name}`}>
      <h2>
        <code>{tool.name}</code> <Badges tool={tool} />
      </h2>
      <p class="description">{tool.description}</p>
      <ToolFacts tool={tool} />
      <div class="tool-columns">
        <form
          class="tool-input"
          onSubmit={invoke}
          aria-label="arguments"
          onKeyDown={(e) => {
            // Ctrl+Enter (Cmd+Enter) invokes from any field, text areas included.
            if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
              e.preventDefault();
              e.currentTarget.requestSubmit();
            }
          }}
        >
          <SchemaForm schema={tool.inputSchema} form={form} onChange={onForm} />
          <label class="field working-directory">
            <span class="field-name">working directory (CallContext)</span>
            <input
              name="working_directory"
              value={workingDirectory}
              onInput={(e) => onWorkingDirectory(e.currentTarget.value)}
            />
          </label>
          <div class="actions">
            {tool.preview === true ? (
              <button type="button" class="secondary" onClick={() => void runPreview()}>
                Preview
              </button>
            ) : null}
            <button type="submit" title="Ctrl+Enter">
              Invoke
            </button>
          </div>
          {failure ? (
            <p class="error-text" role="alert">
              {failure}
            </p>
          ) : null}
        </form>
        <ToolOutput tool={tool} snapshot={snapshot} preview={preview} call={call} />
      </div>
    </section>
  );
}

/**
 * The provider's identity, and whether it is live: the badge turns off with the reason when the
 * provider exits, and Restart launches it again (the rebuilt one, after an edit).
 */
function IdentityHeader({ s, connected }: { s: InspectorSnapshot; connected: boolean }) {
  const [restarting, setRestarting] = useState(false);
  const [failure, setFailure] = useState<string | undefined>();
  const exited = s.identity.exited;
  const restart = async () => {
    setRestarting(true);
    setFailure(undefined);
    try {
      const answer = await api.restart();
      if (!answer.ok) setFailure(answer.message);
    } catch (error) {
      setFailure(error instanceof ApiError ? error.message : String(error));
    } finally {
      setRestarting(false);
    }
  };
  const badge = !connected
    ? ["down", "reconnecting", "reconnecting to the inspector"]
    : exited
      ? ["down", "exited", exited]
      : ["up", "live", "connected"];
  return (
    <header class="identity" aria-label="provider identity">
      <h1>
        {s.identity.name} <span class="version">{s.identity.version}</span>
      </h1>
      <span class="source">{s.identity.source}</span>
      <span class="meta">
        {s.identity.category} provider · protocol v{s.identity.protocolVersion} · pid {s.identity.pid}
        {exited ? (
          <strong class="exited" role="status" aria-label="provider exited">
            {" "}
            · {exited}
          </strong>
        ) : null}
        {failure && failure !== exited ? <strong class="exited"> · {failure}</strong> : null}
      </span>
      <button
        type="button"
        class={exited ? "restart" : "restart secondary"}
        disabled={restarting}
        title="launch the provider again (picks up a rebuild)"
        onClick={() => void restart()}
      >
        {restarting ? "Restarting…" : "Restart provider"}
      </button>
      <span class={`connection ${badge[0]}`} title={badge[2]} aria-label="provider status">
        {badge[1]}
      </span>
    </header>
  );
}

/** Where the main pane is: the view chosen while it still exists, else Configure when it was rejected, else the first tool. */
function currentView(s: InspectorSnapshot, chosen: View | undefined): View {
  if (chosen?.kind === "configure" || chosen?.kind === "render") return chosen;
  // A restarted provider may no longer advertise hook points.
  if (chosen?.kind === "hooks" && s.hookPoints.length > 0) return chosen;
  if (chosen?.kind === "tool" && s.tools.some((t) => t.name === chosen.name)) return chosen;
  const first = s.tools[0];
  return s.configState.status !== "accepted" || !first ? { kind: "configure" } : { kind: "tool", name: first.name };
}

/** Configure, the tools with their badges, Render, and Hooks when the provider advertises a hook point. */
function sidebar(
  s: InspectorSnapshot,
  current: View | undefined,
  tool: ToolView | undefined,
  setView: (view: View) => void,
) {
  return (
    <nav class="sidebar" aria-label="tools">
      <button
        type="button"
        class={`nav-item ${current?.kind === "configure" ? "active" : ""}`}
        onClick={() => setView({ kind: "configure" })}
      >
        Configure <span class={`badge status-${s.configState.status}`}>{s.configState.status}</span>
      </button>
      <h3>Tools</h3>
      {s.tools.map((t) => (
        <button
          type="button"
          key={t.name}
          class={`nav-item ${tool?.name === t.name ? "active" : ""}`}
          onClick={() => setView({ kind: "tool", name: t.name })}
        >
          <code>{t.name}</code>
          <Badges tool={t} />
        </button>
      ))}
      <h3>Kernel</h3>
      <button
        type="button"
        class={`nav-item ${current?.kind === "render" ? "active" : ""}`}
        onClick={() => setView({ kind: "render" })}
      >
        Render
      </button>
      {s.hookPoints.length > 0 ? (
        <button
          type="button"
          class={`nav-item ${current?.kind === "hooks" ? "active" : ""}`}
          onClick={() => setView({ kind: "hooks" })}
        >
          Hooks <span class="badge">{s.hookPoints.filter((p) => p.advertised).length} points</span>
        </button>
      ) : null}
    </nav>
  );
}

type RecordTab = "history" | "logs" | "callbacks";

/** The tabs of the records pane, each with how many records it holds. */
function RecordTabs({ s, tab, setTab }: { s: InspectorSnapshot; tab: RecordTab; setTab: (tab: RecordTab) => void }) {
  const errors = s.logs.filter((l) => l.level === "error" || l.level === "warn").length;
  return (
    <div class="tabs" role="tablist">
      <button type="button" role="tab" aria-selected={tab === "history"} onClick={() => setTab("history")}>
        History ({s.calls.length + s.hooks.length})
      </button>
      <button type="button" role="tab" aria-selected={tab === "logs"} onClick={() => setTab("logs")}>
        Logs ({s.logs.length}
        {errors > 0 ? `, ${errors} warn/error` : ""})
      </button>
      <button type="button" role="tab" aria-selected={tab === "callbacks"} onClick={() => setTab("callbacks")}>
        Kernel callbacks ({s.callbacks.length})
      </button>
    </div>
  );
}

function App() {
  const [state, dispatch] = useReducer(reduce, { connected: false });
  const [view, setView] = useState<View | undefined>();
  const [forms, setForms] = useState<{ [tool: string]: FormValue }>({});
  const [tab, setTab] = useState<RecordTab>("history");
  const [shownCallId, setShownCallId] = useState<string | undefined>();
  const hooksView = useHooksView(() => setView({ kind: "hooks" }));
  const [workingDirectory, setWorkingDirectory] = useState<string | undefined>();
  useEffect(() => followEvents(dispatch, (connected) => dispatch({ kind: "connection", connected })), []);
  const s = state.snapshot;
  // The first view follows the first snapshot (Configure when it was rejected, else the first tool)
  // and then stays where the user put it, while that tool exists (a restarted provider may have others).
  useEffect(() => {
    if (s && !view) setView(currentView(s, undefined));
  });
  if (!s) return <p class="loading">{state.connected ? "Loading…" : "Connecting to the inspector…"}</p>;
  const current = currentView(s, view);
  const formOf = (tool: ToolView): FormValue =>
    forms[tool.name] ?? {
      raw: false,
      value: initialValue(tool.inputSchema) ?? {},
    };
  const loadCall = (call: CallView) => {
    setForms({ ...forms, [call.tool]: { raw: false, value: call.args } });
    setWorkingDirectory(call.workingDirectory);
    setView({ kind: "tool", name: call.tool });
  };
  const tool = current?.kind === "tool" ? s.tools.find((t) => t.name === current.name) : undefined;
  return (
    <div class="layout">
      <IdentityHeader s={s} connected={state.connected} />
      {sidebar(s, current, tool, setView)}
      <main class="main">
        {current?.kind === "configure" ? (
          <ConfigPanel
            key={JSON.stringify(s.configState.config)}
            attributes={s.configAttributes}
            state={s.configState}
          />
        ) : null}
        {current?.kind === "render" ? <RenderPanel /> : null}
        {current?.kind === "hooks" ? hooksView.panel(s) : null}
        {tool ? (
          <ToolPanel
            key={tool.name}
            tool={tool}
            snapshot={s}
            form={formOf(tool)}
            onForm={(form) => setForms({ ...forms, [tool.name]: form })}
            workingDirectory={workingDirectory ?? s.workingDirectory}
            onWorkingDirectory={setWorkingDirectory}
            shownCallId={shownCallId}
            onInvoked={(call) => setShownCallId(call.id)}
          />
        ) : null}
      </main>
      <section class="records" aria-label="records">
        <RecordTabs s={s} tab={tab} setTab={setTab} />
        <div class="tab-body">
          {tab === "history" ? (
            <HistoryPanel
              calls={s.calls}
              hooks={s.hooks}
              hookActions={hooksView.actions(s)}
              onShow={(call) => {
                setShownCallId(call.id);
                setView({ kind: "tool", name: call.tool });
              }}
              onEdit={loadCall}
              onRerun={(call) => {
                void api
                  .invoke({
                    tool: call.tool,
                    args: call.args,
                    workingDirectory: call.workingDirectory,
                  })
                  .then((next) => {
                    setShownCallId(next.id);
                    setView({ kind: "tool", name: call.tool });
                  });
              }}
            />
          ) : null}
          {tab === "logs" ? <LogsPanel logs={s.logs} /> : null}
          {tab === "callbacks" ? <CallbacksPanel callbacks={s.callbacks} replies={s.replies} /> : null}
        </div>
      </section>
    </div>
  );
}

const root = document.getElementById("app");
if (root) {
  root.textContent = "";
  render(<App />, root);
}
