// The Hooks panel: fire one hook point at the provider as the kernel's dispatcher does (any point,
// any mode, so a refusal can be seen too), with the payload prefilled from `harness-tool check`'s
// sample, and the answer the runtime built, the kernel Log lines the handler wrote, or the error
// with its HookError category, worded as `harness-tool hook` words it.
import { useEffect, useRef, useState } from "preact/hooks";
import type {
  HookCallView,
  HookModeView,
  HookPointView,
  HookRequestBody,
  IdentityView,
  InspectorSnapshot,
  Json,
} from "../protocol/page-protocol.js";
import { api, ApiError } from "./inspector-api.js";

/** What the Hooks form holds; the payload text is kept per point, so switching points loses no edit. */
export interface HookForm {
  readonly point: string;
  readonly mode: HookModeView;
  readonly payloads: { readonly [point: string]: string };
  readonly timeoutMs: string;
  readonly subscriptionId: string;
}

const modes: readonly HookModeView[] = ["observe", "transform", "veto"];

/** The form as the panel first shows it: the first advertised point, in observe mode, with the samples. */
export function initialHookForm(points: readonly HookPointView[]): HookForm {
  const first = points.find((p) => p.advertised) ?? points[0];
  return { point: first?.name ?? "", mode: "observe", payloads: {}, timeoutMs: "10000", subscriptionId: "" };
}

/** The form loaded with a fired call, to edit it or fire it again. */
export function hookFormOf(form: HookForm, hook: HookCallView): HookForm {
  return {
    point: hook.point,
    mode: hook.mode,
    payloads: { ...form.payloads, [hook.point]: JSON.stringify(hook.payload, null, 2) },
    timeoutMs: String(hook.timeoutMs),
    subscriptionId: hook.subscriptionId ?? "",
  };
}

function sampleText(point: HookPointView | undefined): string {
  return JSON.stringify(point?.sample ?? {}, null, 2);
}

/** One word for how a hook call ended, as the history lists it. */
export function hookOutcomeText(hook: HookCallView): string {
  const answer = hook.answer;
  if (!answer) return "running";
  if (!answer.ok)
    return answer.cancelled
      ? "cancelled"
      : `${answer.refused ? "refused" : "error"}: ${answer.category ?? answer.status}`;
  const rejected = answer.problems.length > 0 ? " (INVALID_RESPONSE)" : "";
  if (answer.outcome === "observe") return `acknowledged${rejected}`;
  if (answer.outcome === "veto") return `${answer.decision}${rejected}`;
  if (answer.outcome === "transform") return `${answer.unchanged ? "identity" : "transformed"}${rejected}`;
  return `no outcome${rejected}`;
}

/** A word for a POSIX shell, quoted when it needs to be. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
}

/** The same call for the terminal: `harness-tool hook`, the payload saved to a file. */
function cliLine(identity: IdentityView, hook: HookCallView): string {
  const words = [
    "npx",
    "harness-tool",
    "hook",
    identity.executable,
    hook.point,
    "--mode",
    hook.mode,
    "--payload",
    "hook-payload.json",
  ];
  if (hook.subscriptionId) words.push("--subscription", hook.subscriptionId);
  if (hook.timeoutMs !== 10_000) words.push("--timeout", String(hook.timeoutMs));
  if (identity.args.length > 0) words.push("--", ...identity.args);
  return words.map(shellWord).join(" ");
}

function JsonBlock({ value, label }: { value: Json | undefined; label?: string }) {
  return (
    <pre class="json" aria-label={label}>
      {JSON.stringify(value ?? null, null, 2)}
    </pre>
  );
}

function HookAnswer({ hook }: { hook: HookCallView }) {
  const answer = hook.answer;
  if (!answer) return null;
  if (!answer.ok) {
    return (
      <div class="tool-error" role="alert" aria-label="hook error">
        <h4>
          <span class="badge bad">{answer.category ?? answer.status}</span> {answer.message}
        </h4>
        <p class="note">{answer.line}</p>
      </div>
    );
  }
  return (
    <div class="result" aria-label="hook answer">
      {answer.outcome === "observe" ? <p>acknowledged (ObserveAck)</p> : null}
      {answer.outcome === "veto" ? (
        <p>
          verdict <span class={`badge ${answer.decision === "allow" ? "ok" : "bad"}`}>{answer.decision}</span>
        </p>
      ) : null}
      {answer.outcome === "transform" ? (
        <>
          <h4>
            {answer.unchanged ? <span class="badge">identity</span> : <span class="badge ok">transformed</span>}{" "}
            {answer.unchanged ? "the payload came back unchanged" : "the payload came back changed"}
          </h4>
          <JsonBlock value={answer.payload} label="transformed payload" />
        </>
      ) : null}
      {answer.outcome === "none" ? <p>no outcome</p> : null}
      {answer.problems.length > 0 ? (
        <p class="problem" role="alert">
          the kernel rejects this answer as INVALID_RESPONSE ({answer.kernel}): {answer.problems.join("; ")}
        </p>
      ) : null}
    </div>
  );
}

/** The live view of one hook call. */
export function HookCallPanel({ hook, identity }: { hook: HookCallView; identity: IdentityView }) {
  const panel = useRef<HTMLElement>(null);
  useEffect(() => panel.current?.scrollIntoView({ block: "nearest" }), [hook.id]);
  const answer = hook.answer;
  const state = !answer ? "running" : answer.ok ? "answered" : answer.cancelled ? "cancelled" : "error";
  const statusClass = state === "answered" ? "result" : state;
  return (
    <section ref={panel} class="call hook-call" aria-label="hook call" data-state={state}>
      <header class="call-header">
        <span class={`status status-${statusClass}`}>{hookOutcomeText(hook)}</span>
        <code>{hook.point}</code>
        <span class="badge">{hook.mode}</span>
        {hook.advertised ? null : <span class="badge bad">not advertised</span>}
        <span class="timings">
          {hook.durationMs !== undefined ? `total ${hook.durationMs} ms` : "waiting for the answer…"}
        </span>
        {!answer ? (
          <button type="button" class="danger" onClick={() => void api.cancel(hook.id)}>
            Cancel
          </button>
        ) : null}
      </header>
      <HookAnswer hook={hook} />
      <h4>kernel Log lines</h4>
      {hook.logs.length === 0 ? (
        <p class="note">None{answer ? "" : " yet"}.</p>
      ) : (
        <ol class="log-lines" aria-label="hook log lines">
          {hook.logs.map((l, i) => (
            <li key={i} class={`level-${l.level}`}>
              <span class={`badge level-${l.level}`}>{l.level}</span> {l.message}{" "}
              {Object.keys(l.fields).length > 0 ? <code class="fields">{JSON.stringify(l.fields)}</code> : null}
            </li>
          ))}
        </ol>
      )}
      <details class="cli-line">
        <summary>
          as a command line (with the payload saved as hook-payload.json; add --config with your config file, before any
          --)
        </summary>
        <code>{cliLine(identity, hook)}</code>
      </details>
    </section>
  );
}

interface HookPanelProps {
  readonly points: readonly HookPointView[];
  readonly hooks: readonly HookCallView[];
  readonly identity: IdentityView;
  readonly form: HookForm;
  readonly onForm: (form: HookForm) => void;
  readonly shownHookId: string | undefined;
  readonly onFired: (hook: HookCallView) => void;
}

/** The request a fired call was, to fire it again. */
function requestOf(hook: HookCallView): HookRequestBody {
  return {
    point: hook.point,
    mode: hook.mode,
    payload: hook.payload,
    timeoutMs: hook.timeoutMs,
    ...(hook.subscriptionId ? { subscriptionId: hook.subscriptionId } : {}),
  };
}

/**
 * The Hooks view's state, which its panel and the history's hook rows share: the form, and which
 * call the panel shows. `showHooks` brings the Hooks view up.
 */
export function useHooksView(showHooks: () => void) {
  const [form, setForm] = useState<HookForm | undefined>();
  const [shownHookId, setShownHookId] = useState<string | undefined>();
  const show = (hook: HookCallView) => {
    setShownHookId(hook.id);
    showHooks();
  };
  return {
    panel: (s: InspectorSnapshot) => (
      <HookPanel
        points={s.hookPoints}
        hooks={s.hooks}
        identity={s.identity}
        form={form ?? initialHookForm(s.hookPoints)}
        onForm={setForm}
        shownHookId={shownHookId}
        onFired={(hook) => setShownHookId(hook.id)}
      />
    ),
    /** What a hook row of the history does: Show, Edit (into the form), Re-run. */
    actions: (s: InspectorSnapshot) => ({
      onShow: show,
      onEdit: (hook: HookCallView) => {
        setForm(hookFormOf(form ?? initialHookForm(s.hookPoints), hook));
        showHooks();
      },
      onRerun: (hook: HookCallView) => void api.hook(requestOf(hook)).then(show),
    }),
  };
}

/** The point (the advertised ones first) and the mode: any of each, so a refusal can be seen. */
function PointAndMode({ points, form, onForm }: Pick<HookPanelProps, "points" | "form" | "onForm">) {
  const option = (p: HookPointView) => (
    <option key={p.name} value={p.name}>
      {p.name}
    </option>
  );
  const advertised = points.filter((p) => p.advertised);
  return (
    <>
      <label class="field">
        <span class="field-name">point</span>
        <select
          name="hook-point"
          value={form.point}
          onChange={(e) => onForm({ ...form, point: e.currentTarget.value })}
        >
          <optgroup label="advertised">{advertised.map(option)}</optgroup>
          <optgroup label="not advertised (to see the refusal)">
            {points.filter((p) => !p.advertised).map(option)}
          </optgroup>
        </select>
      </label>
      <label class="field">
        <span class="field-name">mode</span>
        <select
          name="hook-mode"
          value={form.mode}
          onChange={(e) => onForm({ ...form, mode: e.currentTarget.value as HookModeView })}
        >
          {modes.map((m) => (
            <option key={m}>{m}</option>
          ))}
        </select>
      </label>
    </>
  );
}

/** The call's deadline and its optional subscription_id. */
function DeadlineAndSubscription({ form, onForm }: Pick<HookPanelProps, "form" | "onForm">) {
  return (
    <>
      <label class="field">
        <span class="field-name">deadline (ms)</span>
        <input
          name="hook-timeout"
          inputMode="numeric"
          value={form.timeoutMs}
          onInput={(e) => onForm({ ...form, timeoutMs: e.currentTarget.value })}
        />
      </label>
      <label class="field">
        <span class="field-name">subscription_id (optional)</span>
        <input
          name="hook-subscription"
          value={form.subscriptionId}
          onInput={(e) => onForm({ ...form, subscriptionId: e.currentTarget.value })}
        />
      </label>
    </>
  );
}

/** The form: point, mode, payload, deadline, subscription_id; Fire sends it. */
function HookRequestForm({
  points,
  form,
  onForm,
  onFired,
}: Pick<HookPanelProps, "points" | "form" | "onForm" | "onFired">) {
  const [failure, setFailure] = useState<string | undefined>();
  const point = points.find((p) => p.name === form.point);
  const payloadText = form.payloads[form.point] ?? sampleText(point);
  const fire = async (event: Event) => {
    event.preventDefault();
    let payload: Json;
    try {
      payload = JSON.parse(payloadText) as Json;
    } catch (error) {
      setFailure(`the payload is not JSON: ${(error as Error).message}`);
      return;
    }
    setFailure(undefined);
    try {
      onFired(
        await api.hook({
          point: form.point,
          mode: form.mode,
          payload,
          timeoutMs: Number(form.timeoutMs),
          ...(form.subscriptionId !== "" ? { subscriptionId: form.subscriptionId } : {}),
        }),
      );
    } catch (error) {
      setFailure(error instanceof ApiError ? error.message : String(error));
    }
  };
  return (
    <form
      class="tool-input"
      onSubmit={fire}
      aria-label="hook request"
      onKeyDown={(e) => {
        if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
          e.preventDefault();
          e.currentTarget.requestSubmit();
        }
      }}
    >
      <PointAndMode points={points} form={form} onForm={onForm} />
      <label class="field">
        <span class="field-name">payload: {point?.payloadType ?? ""} (protobuf JSON)</span>
        <textarea
          name="hook-payload"
          rows={16}
          spellcheck={false}
          value={payloadText}
          onInput={(e) => onForm({ ...form, payloads: { ...form.payloads, [form.point]: e.currentTarget.value } })}
        />
        <span class="help">
          A transform may change{" "}
          {point && point.mutable.length > 0 ? point.mutable.join(", ") : "nothing at this point (identity only)"}.
        </span>
      </label>
      <DeadlineAndSubscription form={form} onForm={onForm} />
      <div class="actions">
        <button
          type="button"
          class="secondary"
          onClick={() => {
            const payloads = { ...form.payloads };
            delete payloads[form.point];
            onForm({ ...form, payloads });
          }}
        >
          Reset to sample
        </button>
        <button type="submit" title="Ctrl+Enter">
          Fire
        </button>
      </div>
      {failure ? (
        <p class="error-text" role="alert">
          {failure}
        </p>
      ) : null}
    </form>
  );
}

/** The form to fire a hook point, and the last call fired (or the one chosen in the history). */
export function HookPanel({ points, hooks, identity, form, onForm, shownHookId, onFired }: HookPanelProps) {
  const shown = hooks.find((h) => h.id === shownHookId) ?? hooks.at(-1);
  const advertised = points.filter((p) => p.advertised);
  return (
    <section class="panel" aria-label="hooks">
      <h2>Hooks</h2>
      <p class="description">
        Fires one hook point at the provider as the kernel's dispatcher does (HookSubscriberService.DispatchHook). It
        advertises{" "}
        {advertised.map((p, i) => (
          <span key={p.name}>
            {i > 0 ? ", " : ""}
            <code>{p.name}</code>
          </span>
        ))}
        ; the wire does not say in which modes, and a point or mode it does not subscribe to must be refused.
      </p>
      <div class="tool-columns">
        <HookRequestForm points={points} form={form} onForm={onForm} onFired={onFired} />
        <div class="tool-output">
          {shown ? (
            <HookCallPanel key={shown.id} hook={shown} identity={identity} />
          ) : (
            <p class="note">Pick a point and a mode, edit the payload and Fire.</p>
          )}
        </div>
      </div>
    </section>
  );
}
