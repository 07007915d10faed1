// Secrets never leave the provider, whatever the handler does: ≥1,000 randomized leak paths
// through a configured service (errors, details, results, partial results, progress, output
// chunks split anywhere, logs, the stderr fallback, Emit, RunSession, Preview, Render).
import assert from "node:assert/strict";
import { it } from "node:test";
import { create, type JsonObject } from "@bufbuild/protobuf";
import fc from "fast-check";
import { EventKind } from "../../../generated/pluggableharness/kernel/v1/kernel_pb.js";
import {
  ConfigureRequestSchema,
  PreviewRequestSchema,
  RenderRequestSchema,
} from "../../../generated/pluggableharness/tool/v1/tool_pb.js";
import { defineConfig, defineProvider, defineTool, ToolError } from "../../../runtime/index.js";
import { createToolService } from "../../../runtime/service/calls/index.js";
import { redactionMarker } from "../../../runtime/redaction/index.js";
import { fakeKernel } from "./support/fake-kernel.js";
import { invokeRequest, recordingSink } from "./support/recording-sink.js";
import { textSchema } from "./support/sample-tools.js";
import { strings } from "../../support/strings-in-value.js";

const leakTool = defineTool<{ text: string }, { text: string }>()({
  name: "leak",
  kind: "resource",
  risk: "high",
  description: "Tries to leak.",
  inputSchema: textSchema,
  outputSchema: textSchema,
  concurrency: { safe: true },
  idempotent: false,
  processBacked: true,
  preview: true,
  defaultTimeoutMs: 5_000,
});

const paths = [
  "tool-error-message",
  "tool-error-details",
  "tool-error-details-key",
  "plain-error",
  "thrown-object",
  "result",
  "partial-result",
  "progress",
  "output-split",
  "log",
  "log-fallback",
  "kernel-log",
  "emit",
  "run-session",
  "json-escaped-message",
  "url-encoded-message",
  "preview",
  "render",
  "exit-signal",
] as const;
type LeakPath = (typeof paths)[number];

const config = defineConfig<{ api_key: string; nested: { password: string } }>([
  { name: "api_key", type: "string", sensitive: true, required: true },
  { name: "nested", type: "object", objectAttributes: [{ name: "password", type: "string", sensitive: true }] },
]);

const secretChars = fc.constantFrom(...'abcxyz0189-_/+="\\ %&?é🔑\n'.split(/(?:)/u));

it("no randomized leak path lets a secret out", async () => {
  let runs = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.string({ unit: secretChars, minLength: 4, maxLength: 24 }),
      fc.constantFrom(...paths),
      fc.string({ maxLength: 8 }),
      fc.string({ maxLength: 8 }),
      fc.array(fc.nat(64), { maxLength: 5 }),
      fc.boolean(),
      async (secret, path: LeakPath, before, after, cuts, useNested) => {
        fc.pre(!redactionMarker.includes(secret));
        runs++;
        const leaked = before + secret + after;
        const kernel = fakeKernel();
        if (path === "log-fallback") kernel.failLog = new Error(`kernel refused ${leaked}`);
        const stderr: string[] = [];
        const provider = defineProvider(
          {
            name: "leaky",
            version: "1",
            source: "github.com/acme/s",
            tools: { leakTool },
            config,
            renderers: { v1: async () => ({ root: { node: { case: "text", value: { content: leaked } } } }) },
          },
          {
            leakTool: async (_input, ctx) => {
              switch (path) {
                case "tool-error-message":
                  throw new ToolError("execution_failed", `failed with ${leaked}`);
                case "tool-error-details":
                  throw new ToolError("execution_failed", "failed", { details: { got: leaked, list: [leaked] } });
                case "tool-error-details-key":
                  throw new ToolError("execution_failed", "failed", { details: { [leaked]: 1 } });
                case "plain-error":
                  throw new Error(`boom ${leaked}`, { cause: { why: leaked } });
                case "thrown-object":
                  throw { token: leaked };
                case "json-escaped-message":
                  throw new ToolError("execution_failed", JSON.stringify({ request: { auth: leaked } }));
                case "url-encoded-message":
                  throw new ToolError("execution_failed", `GET https://api.example/?key=${encodeURIComponent(leaked)}`);
                case "partial-result":
                  ctx.partialResult({ note: leaked });
                  break;
                case "progress":
                  ctx.progress(leaked);
                  break;
                case "output-split": {
                  const bytes = Buffer.from(leaked);
                  let at = 0;
                  for (const c of [...new Set(cuts.map((n) => n % (bytes.length + 1)))].sort((a, b) => a - b)) {
                    ctx.output("stdout", bytes.subarray(at, c));
                    at = c;
                  }
                  ctx.output("stdout", bytes.subarray(at));
                  break;
                }
                case "log":
                case "log-fallback":
                  ctx.log.warn(leaked, { field: leaked });
                  break;
                case "kernel-log":
                  await ctx.kernel.log("info", leaked, { [leaked]: leaked });
                  break;
                case "emit":
                  await ctx.kernel.emit(EventKind.TOOL_RESULT, Buffer.from(JSON.stringify({ v: leaked })), "1");
                  break;
                case "run-session":
                  await ctx.kernel.runSession({ prompt: `use ${leaked}` });
                  break;
                case "exit-signal":
                  ctx.exitStatus(1, leaked);
                  return { text: "ok" };
                default:
                  break;
              }
              ctx.exitStatus(0);
              return { text: path === "result" ? leaked : "ok" };
            },
          },
          { leakTool: async () => ({ root: { node: { case: "text", value: { content: leaked } } } }) },
        );
        const service = createToolService(provider, { stderr: (l) => stderr.push(l), kernel });
        await service.configure(
          create(ConfigureRequestSchema, {
            config: useNested ? { api_key: "unrelated-key", nested: { password: secret } } : { api_key: secret },
          }),
        );
        const out: unknown[] = [];
        if (path === "preview") {
          out.push(
            await service.preview(create(PreviewRequestSchema, { call: invokeRequest("leak", { text: "a" }).call! })),
          );
        } else if (path === "render") {
          out.push(
            await service.render(create(RenderRequestSchema, { schemaVersion: "v1", payload: Buffer.from("x") })),
          );
        } else {
          const rec = recordingSink();
          await service.invoke(invokeRequest("leak", { text: "a" }), rec.sink);
          out.push(rec.events);
          // Output chunks are checked joined, so a secret split across chunks is caught too.
          out.push(
            Buffer.concat(
              rec.events
                .filter((e) => e.event.case === "outputChunk")
                .map((e) => Buffer.from((e.event.value as { data: Uint8Array }).data)),
            ),
          );
        }
        await new Promise((resolve) => setImmediate(resolve));
        out.push(kernel.logs, kernel.emits, kernel.sessions, stderr);
        for (const text of strings(out)) {
          for (const form of [secret, JSON.stringify(secret).slice(1, -1), encodeURIComponent(secret)]) {
            assert.ok(!text.includes(form), `path ${path}: ${JSON.stringify(form)} leaked in ${JSON.stringify(text)}`);
          }
        }
      },
    ),
    { numRuns: 1200 },
  );
  assert.ok(runs >= 1000, `only ${runs} runs`);
});

it("the path is actually exercised: without Configure's secrets the same handler leaks", async () => {
  const provider = defineProvider(
    { name: "p", version: "1", source: "github.com/acme/s", tools: { leakTool } },
    {
      leakTool: async () => {
        throw new ToolError("execution_failed", "key sk-12345");
      },
    },
    { leakTool: async () => ({}) },
  );
  const rec = recordingSink();
  await createToolService(provider, { stderr: () => {} }).invoke(invokeRequest("leak", { text: "a" }), rec.sink);
  assert.match(JSON.stringify(rec.events.map((e) => e.event.value)), /sk-12345/);
  void ({} as JsonObject);
});
