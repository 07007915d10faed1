// One Invoke as it streams: stdout and stderr as a terminal shows them, progress, partial results,
// the exit status, and the terminal result (checked against output_schema) or ToolError, with the
// call's timings and a Cancel button while it runs.
import { useEffect, useRef } from "preact/hooks";
import type { CallEventView, CallView, IdentityView, Json } from "../protocol/page-protocol.js";

function JsonBlock({ value, label }: { value: Json | undefined; label?: string }) {
  return (
    <pre class="json" aria-label={label}>
      {JSON.stringify(value ?? null, null, 2)}
    </pre>
  );
}

function lastOf<T extends CallEventView["type"]>(events: readonly CallEventView[], type: T): EventOf<T> | undefined {
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i];
    if (e?.type === type) return e as EventOf<T>;
  }
  return undefined;
}

/** A word for a POSIX shell, quoted when it needs to be. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
}

/** The same call for the terminal: `harness-tool invoke`, the provider's own arguments after `--`. */
function cliLine(identity: IdentityView, call: CallView): string {
  const words = [
    "npx",
    "harness-tool",
    "invoke",
    identity.executable,
    call.tool,
    "--cwd",
    call.workingDirectory,
    "--args",
    JSON.stringify(call.args),
  ];
  if (identity.args.length > 0) words.push("--", ...identity.args);
  return words.map(shellWord).join(" ");
}

type EventOf<T extends CallEventView["type"]> = Extract<CallEventView, { type: T }>;

/** The call's state, its tool, its timings, and Cancel while it runs. */
function CallHeader({ call, state, onCancel }: { call: CallView; state: string; onCancel: () => void }) {
  const end = call.end;
  return (
    <header class="call-header">
      <span class={`status status-${state}`}>{state}</span>
      <code>{call.tool}</code>
      <span class="timings">
        {end
          ? `${end.status} · ${end.firstEventMs !== undefined ? `first event ${end.firstEventMs} ms · ` : ""}total ${end.durationMs} ms`
          : "waiting for events…"}
      </span>
      {!end ? (
        <button type="button" class="danger" onClick={onCancel}>
          Cancel
        </button>
      ) : null}
    </header>
  );
}

/** stdout and stderr interleaved as a terminal shows them. */
function Terminal({ output }: { output: readonly EventOf<"output">[] }) {
  return (
    <pre class="terminal" aria-label="output">
      {output.map((o, i) => (
        <span key={i} class={o.stream}>
          {o.text}
        </span>
      ))}
    </pre>
  );
}

/** The terminal result, with whether it matches output_schema and where it does not. */
function ResultBlock({ result }: { result: EventOf<"result"> }) {
  return (
    <div class="result" aria-label="result">
      <h4>
        result{" "}
        {result.violations.length === 0 ? (
          <span class="badge ok">matches output_schema</span>
        ) : (
          <span class="badge bad">does not match output_schema</span>
        )}
      </h4>
      {result.violations.length > 0 ? (
        <ul class="violations">
          {result.violations.map((v, i) => (
            <li key={i}>
              <code>{v.path || "/"}</code> {v.message}
            </li>
          ))}
        </ul>
      ) : null}
      <JsonBlock value={result.payload} label="result payload" />
    </div>
  );
}

/** The terminal ToolError: its category, whether it is retryable, its message and details. */
function ToolErrorBlock({ error }: { error: EventOf<"error"> }) {
  return (
    <div class="tool-error" role="alert" aria-label="tool error">
      <h4>
        <span class="badge bad">{error.category}</span>
        {error.retryable ? <span class="badge">retryable</span> : null} {error.message}
      </h4>
      {error.details !== undefined ? <JsonBlock value={error.details} label="error details" /> : null}
    </div>
  );
}

/** The events of a call as they stream: progress, output, a partial result and the exit status. */
function StreamedEvents({ call }: { call: CallView }) {
  const output = call.events.filter((e): e is EventOf<"output"> => e.type === "output");
  const progress = lastOf(call.events, "progress");
  const partial = lastOf(call.events, "partial");
  const exit = lastOf(call.events, "exit");
  const terminal = lastOf(call.events, "result") ?? lastOf(call.events, "error");
  return (
    <>
      {progress ? (
        <div class="progress" aria-label="progress">
          <span>{progress.message}</span>
          {progress.fraction !== undefined ? <progress max={1} value={progress.fraction} /> : null}
        </div>
      ) : null}
      {output.length > 0 ? <Terminal output={output} /> : null}
      {partial && !terminal ? (
        <div class="partial">
          <h4>partial result</h4>
          <JsonBlock value={partial.payload} />
        </div>
      ) : null}
      {exit ? (
        <p class={`exit-status ${exit.exitCode === 0 ? "ok" : "nonzero"}`} aria-label="exit status">
          exit status {exit.exitCode}
          {exit.signal ? ` (signal ${exit.signal})` : ""}
        </p>
      ) : null}
    </>
  );
}

/** The live view of one call; `identity` gives the provider's command line, for the CLI equivalent. */
export function CallPanel({
  call,
  identity,
  onCancel,
}: {
  call: CallView;
  identity: IdentityView;
  onCancel: () => void;
}) {
  const result = lastOf(call.events, "result");
  const error = lastOf(call.events, "error");
  const end = call.end;
  const panel = useRef<HTMLElement>(null);
  // A new call comes into view; the stream then grows in place.
  useEffect(() => panel.current?.scrollIntoView({ block: "nearest" }), [call.id]);
  const state = !end ? "running" : end.cancelled ? "cancelled" : error ? "error" : result ? "result" : "failed";
  return (
    <section ref={panel} class={`call call-${state}`} aria-label="call" data-state={state}>
      <CallHeader call={call} state={state} onCancel={onCancel} />
      <StreamedEvents call={call} />
      {result ? <ResultBlock result={result} /> : null}
      {error ? <ToolErrorBlock error={error} /> : null}
      {end?.cancelled ? (
        <p class="note">
          Cancelled: the RPC was cancelled as the kernel cancels it
          {result || error ? "" : "; no terminal event came, as the protocol requires"}.
        </p>
      ) : null}
      <details class="cli-line">
        <summary>as a command line (add --config with your config file, before any --)</summary>
        <code>{cliLine(identity, call)}</code>
      </details>
      {end?.problem ? (
        <p class="problem" role="alert">
          {end.problem}
        </p>
      ) : null}
    </section>
  );
}
