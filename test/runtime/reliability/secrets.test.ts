/**
 * Reliability: secrets. A provider configured with four sensitive values (a top-level API key, a
 * nested password, a list of tokens, a numeric PIN) runs ≥1,000 randomized *plans*: each plan is a
 * sequence of 1–5 leak actions (log message and fields, kernel Log, Emit payload bytes,
 * RunSession prompt, progress, partial results with nested JSON, output chunks split at random
 * points on stdout and stderr, an exit_status signal, an exit_status sent mid-plan, so that a
 * secret split across chunks may have exit_status, progress or partial results between its halves) followed by an ending (a result with the
 * secret nested deep, an output that breaks output_schema, a ToolError with the secret in its
 * message/details/keys, an Error with it in its message, stack, code and cause chain, an
 * AggregateError, a thrown string or object, a timeout with a late partial result and result, a
 * cancellation with events emitted during the grace). Every leaked text embeds one of the
 * secrets raw, JSON-escaped, doubly JSON-escaped or URL-encoded, between random text. Plans also
 * rotate the key with a second Configure and send a rejected Configure carrying the secret.
 *
 * Zero occurrences, in any of those forms, of any secret (the rotated-out key included) in
 * everything sent to the sink, to the kernel fake, or written to stderr.
 *
 * Out of scope (docs/reliability.md): transformations the redactor cannot know (base64, hashes,
 * case changes, reversal), fragments of a secret (a secret split across stdout and stderr), a
 * sensitive number written as a JSON number, secrets shorter than 4 characters inside text.
 */
import assert from "node:assert/strict";
import { it } from "node:test";
import { create, type JsonObject, type JsonValue } from "@bufbuild/protobuf";
import fc from "fast-check";
// The runtime by path, not "harness-tool": soak/mutation-check.mjs mutates a copy of it, which the
// package name (node_modules is linked to this checkout's) would not reach.
import { EventKind } from "../../../generated/pluggableharness/kernel/v1/kernel_pb.js";
import { ConfigureRequestSchema } from "../../../generated/pluggableharness/tool/v1/tool_pb.js";
import {
  defineConfig,
  defineProvider,
  defineTool,
  ToolError,
  type ProcessToolContext,
  type StreamingToolContext,
} from "../../../runtime/index.js";
import { createToolService } from "../../../runtime/service/calls/index.js";
import { redactionMarker } from "../../../runtime/redaction/index.js";
import { fakeKernel } from "../service/support/fake-kernel.js";
import { invokeRequest, recordingSink } from "../service/support/recording-sink.js";
import { strings } from "../../support/strings-in-value.js";

const scale = Number(process.env["SECRETS_RUNS"] ?? "1");
/** SECRETS_SEED / SECRETS_PATH replay a failure fast-check reported. */
function replay(prefix: string): { seed?: number; path?: string } {
  const seed = process.env[`${prefix}_SEED`];
  const at = process.env[`${prefix}_PATH`];
  return { ...(seed ? { seed: Number(seed) } : {}), ...(at ? { path: at } : {}) };
}

const schema = { type: "object", properties: { text: { type: "string" } }, required: ["text"] } as const;
const spec = {
  kind: "resource",
  risk: "high",
  description: "Tries to leak.",
  inputSchema: schema,
  outputSchema: schema,
  concurrency: { safe: true },
  idempotent: false,
  processBacked: true,
} as const;
const leak = defineTool<{ text: string }, { text: string }>()({ ...spec, name: "leak", defaultTimeoutMs: 10_000 });
const leakTimed = defineTool<{ text: string }, { text: string }>()({
  ...spec,
  name: "leak_timed",
  defaultTimeoutMs: 20,
});

interface Config {
  api_key: string;
  nested: { password: string };
  tokens: string[];
  pin: number;
}
const config = defineConfig<Config>([
  { name: "api_key", type: "string", sensitive: true, required: true },
  {
    name: "nested",
    type: "object",
    required: true,
    objectAttributes: [{ name: "password", type: "string", sensitive: true, required: true }],
  },
  { name: "tokens", type: "list_string", sensitive: true, required: true },
  { name: "pin", type: "number", sensitive: true, required: true },
]);

const encodings = ["raw", "json", "json-twice", "url"] as const;
type Encoding = (typeof encodings)[number];
function encode(secret: string, how: Encoding): string {
  switch (how) {
    case "raw":
      return secret;
    case "json":
      return JSON.stringify({ secret });
    case "json-twice":
      return JSON.stringify(JSON.stringify({ secret }));
    case "url":
      return `https://api.example/v1?key=${encodeURIComponent(secret)}&q=1`;
  }
}
/** The forms whose presence counts as a leak. */
function forms(secret: string): string[] {
  const json = JSON.stringify(secret).slice(1, -1);
  return [...new Set([secret, json, JSON.stringify(json).slice(1, -1), encodeURIComponent(secret)])];
}

const actions = [
  "log",
  "log-fields",
  "log-fallback",
  "kernel-log",
  "emit",
  "run-session",
  "progress",
  "partial",
  "stdout-split",
  "stderr-split",
  "exit-signal",
  "exit-now",
] as const;
const endings = [
  "result",
  "invalid-output",
  "tool-error-message",
  "tool-error-details",
  "tool-error-key",
  "error-message",
  "error-stack",
  "error-cause-chain",
  "error-code",
  "aggregate",
  "throw-string",
  "throw-object",
  "timeout",
  "cancel",
] as const;
type Action = (typeof actions)[number];
type Ending = (typeof endings)[number];

/** A secret: 6–24 characters with at least one that never occurs in the runtime's own texts by chance. */
const secretChars = fc.constantFrom(...'abcxyz0189-_/+="\\ %&?é🔑\n\t<>'.split(/(?:)/u));
const secret = fc
  .tuple(
    fc.string({ unit: secretChars, minLength: 5, maxLength: 23 }),
    fc.constantFrom("🔑", "é", '"', "\\", "%", "\n", "&"),
    fc.nat(23),
  )
  .map(([body, rare, at]) => {
    const chars = [...body];
    chars.splice(at % (chars.length + 1), 0, rare);
    return chars.join("");
  })
  .filter((s) => !redactionMarker.includes(s) && s.trim().length >= 4);
// Eight digits: never inside the runtime's own texts (ISO timestamps have at most six in a row).
const pin = fc.integer({ min: 10_000_000, max: 99_999_999 });

const plan = fc.record({
  secrets: fc.record({
    oldKey: secret,
    apiKey: secret,
    password: secret,
    tokens: fc.array(secret, { minLength: 1, maxLength: 3 }),
    pin,
  }),
  rotate: fc.boolean(),
  rejectedConfigure: fc.boolean(),
  steps: fc.array(
    fc.record({
      action: fc.constantFrom(...actions),
      which: fc.nat(5),
      how: fc.constantFrom(...encodings),
      before: fc.string({ maxLength: 6 }),
      after: fc.string({ maxLength: 6 }),
      cuts: fc.array(fc.nat(80), { maxLength: 4 }),
      // What the handler sends between the chunks of a split (an exit_status there once split the secret).
      between: fc.constantFrom("nothing", "exit", "progress", "partial"),
    }),
    { minLength: 1, maxLength: 5 },
  ),
  ending: fc.record({ kind: fc.constantFrom(...endings), which: fc.nat(5), how: fc.constantFrom(...encodings) }),
});

/** Sends `bytes` as output chunks cut at `cuts`, calling `between()` after each chunk but the last. */
function chunked(
  ctx: ProcessToolContext<Config>,
  stream: "stdout" | "stderr",
  bytes: Buffer,
  cuts: readonly number[],
  between: () => void = () => {},
): void {
  let at = 0;
  for (const c of [...new Set(cuts.map((n) => n % (bytes.length + 1)))].sort((a, b) => a - b)) {
    ctx.output(stream, bytes.subarray(at, c));
    between();
    at = c;
  }
  ctx.output(stream, bytes.subarray(at));
}

it("≥1,000 randomized error, log, partial-result, output and emit paths leak no secret", async () => {
  let runs = 0;
  const seen = new Map<string, number>();
  await fc.assert(
    fc.asyncProperty(plan, async (p) => {
      runs++;
      const s = p.secrets;
      const pool = [s.apiKey, s.password, ...s.tokens, String(s.pin), ...(p.rotate ? [s.oldKey] : [])];
      fc.pre(new Set(pool).size === pool.length);
      const pick = (n: number) => pool[n % pool.length]!;
      const text = (n: number, how: Encoding, before = "", after = "") => `${before}${encode(pick(n), how)}${after}`;
      const kernel = fakeKernel();
      const stderr: string[] = [];
      const out: unknown[] = [];

      const handler = async (
        _input: { text: string },
        ctx: ProcessToolContext<Config> & StreamingToolContext<Config>,
      ): Promise<{ text: string }> => {
        let exited = false;
        const exitStatus = (code: number, signal?: string) => {
          if (!exited) ctx.exitStatus(code, signal);
          exited = true;
        };
        for (const step of p.steps) {
          const leaked = text(step.which, step.how, step.before, step.after);
          const between = () => {
            if (step.between === "exit") exitStatus(0);
            else if (step.between === "progress") ctx.progress("between chunks", 0.5);
            else if (step.between === "partial") ctx.partialResult({ between: "chunks" });
          };
          seen.set(step.action, (seen.get(step.action) ?? 0) + 1);
          switch (step.action as Action) {
            case "log":
              ctx.log.info(leaked);
              break;
            case "log-fields":
              ctx.log.warn("fields", { nested: { deep: [leaked, { [leaked]: leaked }] } });
              break;
            case "log-fallback":
              kernel.failLog = new Error(`kernel refused: ${leaked}`);
              ctx.log.error(leaked, { f: leaked });
              break;
            case "kernel-log":
              await ctx.kernel.log("info", leaked, { [leaked]: { v: leaked } }).catch(() => {});
              break;
            case "emit":
              await ctx.kernel.emit(
                EventKind.TOOL_RESULT,
                Buffer.from(JSON.stringify({ payload: { v: leaked } })),
                "1",
              );
              break;
            case "run-session":
              await ctx.kernel.runSession({ prompt: `continue with ${leaked}` });
              break;
            case "progress":
              ctx.progress(leaked, 0.5);
              break;
            case "partial":
              ctx.partialResult({ rows: [{ cell: leaked }], [leaked]: true } as { [key: string]: JsonValue });
              break;
            case "stdout-split":
              chunked(ctx, "stdout", Buffer.from(leaked), step.cuts, between);
              break;
            case "stderr-split":
              chunked(ctx, "stderr", Buffer.from(leaked), step.cuts, between);
              break;
            case "exit-signal":
              break; // sent at the end, with exit_status
            case "exit-now":
              // Between the chunks of this plan: a secret split across it must still be caught.
              exitStatus(0);
              break;
          }
        }
        const e = p.ending;
        const leaked = text(e.which, e.how, "<", ">");
        seen.set(e.kind, (seen.get(e.kind) ?? 0) + 1);
        const exitSignal = p.steps.some((st) => st.action === "exit-signal") ? leaked : undefined;
        switch (e.kind as Ending) {
          case "result":
            exitStatus(0, exitSignal);
            return { text: leaked, deep: { list: [leaked] } } as { text: string };
          case "invalid-output":
            exitStatus(0, exitSignal);
            return { text: { [leaked]: leaked } } as unknown as { text: string };
          case "tool-error-message":
            throw new ToolError("execution_failed", `failed: ${leaked}`);
          case "tool-error-details":
            throw new ToolError("execution_failed", "failed", {
              details: { request: { headers: [leaked] }, raw: JSON.stringify({ k: leaked }) },
            });
          case "tool-error-key":
            throw new ToolError("permission_denied", "denied", { details: { [leaked]: { [leaked]: 1 } } });
          case "error-message":
            throw new Error(`request failed: ${leaked}`);
          case "error-stack": {
            const err = new Error("plain message");
            err.stack = `Error: plain\n    at fetch (${leaked})`;
            throw err;
          }
          case "error-cause-chain":
            throw new Error("outer", {
              cause: new TypeError("middle", { cause: { config: { key: leaked }, list: [leaked] } }),
            });
          case "error-code":
            throw Object.assign(new Error("with code"), { code: leaked });
          case "aggregate":
            throw new AggregateError([new Error(leaked)], `several: ${leaked}`);
          case "throw-string":
            throw leaked;
          case "throw-object":
            throw { auth: { bearer: leaked } };
          case "timeout":
          case "cancel":
            await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve, { once: true }));
            ctx.output("stdout", `stopped: ${leaked}`);
            ctx.partialResult({ stopped: leaked });
            exitStatus(137, exitSignal ?? "SIGKILL");
            return { text: leaked };
        }
      };

      const provider = defineProvider(
        { name: "leaky", version: "1", source: "github.com/acme/s", tools: { leak, leakTimed }, config },
        { leak: handler as never, leakTimed: handler as never },
      );
      const service = createToolService(provider, { kernel, stderr: (line) => stderr.push(line), settleGraceMs: 30 });
      const configure = (api_key: string) =>
        service.configure(
          create(ConfigureRequestSchema, {
            config: { api_key, nested: { password: s.password }, tokens: s.tokens, pin: s.pin },
          }),
        );
      if (p.rotate) {
        await configure(s.oldKey);
        await configure(s.apiKey);
      } else await configure(s.apiKey);
      if (p.rejectedConfigure) {
        const rejected = await service
          .configure(
            create(ConfigureRequestSchema, {
              config: {
                api_key: s.apiKey,
                nested: { password: 42 },
                bogus: pick(p.ending.which),
                [pick(p.ending.which)]: 1,
              } as JsonObject,
            }),
          )
          .catch((err: unknown) => err);
        out.push(rejected instanceof Error ? [rejected.message, rejected.stack, { ...rejected }] : rejected);
      }

      const rec = recordingSink();
      const done = service.invoke(
        invokeRequest(p.ending.kind === "timeout" ? "leak_timed" : "leak", { text: "go" }),
        rec.sink,
      );
      if (p.ending.kind === "cancel") {
        await new Promise((resolve) => setImmediate(resolve));
        rec.cancel();
      }
      await done;
      await new Promise((resolve) => setImmediate(resolve));
      out.push(rec.events);
      // Output chunks joined per stream, so a secret split across chunks is caught.
      for (const stream of [1, 2]) {
        out.push(
          Buffer.concat(
            rec.events.flatMap((ev) =>
              ev.event.case === "outputChunk" && ev.event.value.stream === stream
                ? [Buffer.from(ev.event.value.data)]
                : [],
            ),
          ),
        );
      }
      out.push(kernel.logs, kernel.emits, kernel.sessions, stderr);
      const texts = strings(out);
      for (const secretValue of pool) {
        for (const form of forms(secretValue)) {
          const hit = texts.find((t) => t.includes(form));
          assert.equal(
            hit,
            undefined,
            `${JSON.stringify(form)} leaked (plan ${JSON.stringify({ steps: p.steps.map((st) => st.action), ending: p.ending.kind })}) in ${JSON.stringify(hit)}`,
          );
        }
      }
      await service.shutdown(100);
    }),
    { numRuns: Math.round(1200 * scale), ...replay("SECRETS") },
  );
  assert.ok(runs >= 1000, `only ${runs} runs`);
  // Every action and ending was exercised a fair number of times.
  for (const name of [...actions, ...endings])
    assert.ok((seen.get(name) ?? 0) >= 20, `${name} ran only ${seen.get(name) ?? 0} times`);
});
