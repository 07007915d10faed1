/**
 * The error paths through the kernel's go-plugin v1.8.0 host (grpc-go sending the bytes the
 * kernel would send, test/runtime/interop/fixtures/error-paths-provider.ts serving):
 * - a secret split across output chunks with exit_status, progress and partial results between
 *   the halves, in every order: the stream, joined, shows the marker and never the secret;
 * - errors built from huge inputs (300,000 wrong-typed items, a result of 300,000 wrong rows, a
 *   config of 300,000 wrong tags, a 1 MB tool name or property name) stay small;
 * - arguments and configs nested up to `maxArgumentDepth` levels are decoded and handled; deeper
 *   ones, to 100,000 levels, are refused with `invalid_arguments` naming the depth, never with
 *   gRPC INTERNAL, and the provider serves on.
 * Figures (docs/runtime.md#bounded-errors, #deep-arguments) are printed as `# ...` lines.
 */
import assert from "node:assert/strict";
import { after, before, describe } from "node:test";
import { create, fromBinary, toBinary, type JsonObject } from "@bufbuild/protobuf";
import {
  ConfigureRequestSchema,
  InvokeRequestSchema,
  RenderRequestSchema,
  InvokeResponseSchema,
  PreviewRequestSchema,
  ToolCallSchema,
  ToolErrorCategory,
  type ToolError,
  type ToolEvent,
} from "harness-tool/generated/pluggableharness/tool/v1/tool_pb.js";
import { redactionMarker } from "harness-tool/redaction";
import { maxArgumentDepth } from "../../../runtime/service/calls/argument-depth.js";
import { maxErrorMessageChars, maxReportedViolations } from "../../../runtime/errors/input-error-bounds.js";
import { toolErrorFromStatus } from "../../../runtime/errors/rpc-status-details.js";
import { StatusSchema } from "harness-tool/generated/google/rpc/status_pb.js";
import { b64, type GoHost } from "./go-host.js";
import { goSkip, hostLabels, scenario, start, type Harness } from "./host-matrix.js";
import { typeScriptProvider } from "./providers.js";
import { callContext } from "./scenarios.js";

const errorPathsProvider = typeScriptProvider("error-paths", "test/runtime/interop/fixtures/error-paths-provider.ts");
const secret = "sk-live-Zq7-0123456789abcdef";
const service = "/pluggableharness.tool.v1.ToolService";

/** What an Invoke sent, as the Go host received it: each event with its size on the wire. */
interface RawOutcome {
  readonly events: readonly ToolEvent[];
  readonly sizes: readonly number[];
  readonly code: number;
  readonly message: string;
}

async function invokeRaw(go: GoHost, request: Uint8Array): Promise<RawOutcome> {
  const result = await go.request({ op: "invoke", request: b64(request) });
  const raw = (result.events as string[]).map((e) => Buffer.from(e, "base64"));
  return {
    events: raw.map((bytes) => fromBinary(InvokeResponseSchema, bytes).event as ToolEvent),
    sizes: raw.map((bytes) => bytes.byteLength),
    code: Number(result.code ?? 0),
    message: String(result.message ?? ""),
  };
}

/** A unary call as the Go host saw it: code, message, the ToolError from the status details, and the status's size. */
async function unaryRaw(
  go: GoHost,
  method: string,
  request: Uint8Array,
): Promise<{ code: number; message: string; toolError?: ToolError; statusBytes: number }> {
  const result = await go.request({ op: "unary", method: `${service}/${method}`, request: b64(request) });
  const status = result.status ? Buffer.from(String(result.status), "base64") : new Uint8Array(0);
  const toolError = status.byteLength > 0 ? toolErrorFromStatus(fromBinary(StatusSchema, status)) : undefined;
  return {
    code: Number(result.code),
    message: String(result.message ?? ""),
    statusBytes: status.byteLength,
    ...(toolError ? { toolError } : {}),
  };
}

const invokeRequest = (toolName: string, args: JsonObject, id = toolName) =>
  toBinary(
    InvokeRequestSchema,
    create(InvokeRequestSchema, { call: { id, toolName, arguments: args, callContext: callContext("s-errors") } }),
  );

/** The only event, which must be an error. */
function onlyError(outcome: RawOutcome): { error: ToolError; bytes: number } {
  assert.equal(outcome.code, 0, `the stream ended OK (${outcome.message})`);
  assert.equal(outcome.events.length, 1);
  const event = outcome.events[0]?.event;
  assert.equal(event?.case, "error");
  return { error: event.value, bytes: outcome.sizes[0] as number };
}

function pushVarint(out: number[], value: number): void {
  for (; value >= 128; value = Math.floor(value / 128)) out.push((value & 0x7f) | 0x80);
  out.push(value);
}

/**
 * `{"a": {"a": ... {}}}` nested `depth` levels, as the bytes of a google.protobuf.Struct, built
 * in linear time without recursion (protobuf-es's own encoder recurses).
 */
function deepStructBytes(depth: number): Buffer {
  // Level k's Struct: field 1 = entry {1: "a", 2: Value {5: Struct of level k-1}}.
  const structSize = [0];
  const header: number[][] = [[]];
  for (let k = 1; k < depth; k++) {
    const inner = structSize[k - 1] as number;
    const value: number[] = [0x2a];
    pushVarint(value, inner);
    const valueSize = value.length + inner;
    const entry: number[] = [0x0a, 1, 0x61, 0x12];
    pushVarint(entry, valueSize);
    const entrySize = entry.length + valueSize;
    const struct: number[] = [0x0a];
    pushVarint(struct, entrySize);
    header.push([...struct, ...entry, ...value]);
    structSize.push(struct.length + entrySize);
  }
  const out = Buffer.alloc(structSize[depth - 1] as number);
  let at = 0;
  for (let k = depth - 1; k >= 1; k--) {
    for (const b of header[k] as number[]) out[at++] = b;
  }
  return out;
}

/** A length-delimited field. */
function field(number: number, body: Uint8Array): Buffer {
  const head: number[] = [];
  pushVarint(head, number * 8 + 2);
  pushVarint(head, body.byteLength);
  return Buffer.concat([Uint8Array.from(head), body]);
}

/** A ToolCall of `toolName` whose arguments nest `depth` levels, as bytes. */
function deepCall(depth: number, toolName = "deep"): Buffer {
  const base = toBinary(
    ToolCallSchema,
    create(ToolCallSchema, { id: `deep-${depth}`, toolName, callContext: callContext("s-deep") }),
  );
  return Buffer.concat([base, field(3, deepStructBytes(depth))]);
}

describe(`${hostLabels.go} × error paths`, { skip: goSkip }, () => {
  let h: Harness;
  let go: GoHost;
  before(async () => {
    h = await start("go", errorPathsProvider);
    go = h.go as GoHost;
    assert.equal((await h.host.configure({ api_key: secret })).code, 0);
  });
  after(() => h?.close());

  scenario(
    "go",
    "a secret split in two output chunks is redacted whatever comes between or around the halves: exit_status, progress, partial",
    async () => {
      // Every order of the five steps in which the head comes before the tail: 60 orders.
      const others = ["exit", "progress", "partial"];
      const orders: string[][] = [];
      const place = (rest: string[], acc: string[]): void => {
        if (rest.length === 0) {
          if (acc.indexOf("head") < acc.indexOf("tail")) orders.push(acc);
          return;
        }
        for (let i = 0; i < rest.length; i++)
          place([...rest.slice(0, i), ...rest.slice(i + 1)], [...acc, rest[i] as string]);
      };
      place(["head", "tail", ...others], []);
      assert.equal(orders.length, 60);
      const leaks: string[] = [];
      for (const steps of orders) {
        for (const cut of [1, 8, secret.length - 1]) {
          const outcome = await invokeRaw(
            go,
            invokeRequest("split_secret", { steps, cut }, `split-${steps.join("-")}-${cut}`),
          );
          const stdout = Buffer.concat(
            outcome.events.flatMap((e) => (e.event.case === "outputChunk" ? [e.event.value.data] : [])),
          ).toString();
          const kinds = outcome.events.map((e) => e.event.case);
          assert.equal(kinds.at(-1), "result", `${steps.join(",")} cut ${cut}: ${kinds.join(",")}`);
          assert.ok(kinds.indexOf("exitStatus") < kinds.indexOf("result"));
          if (stdout !== `<<${redactionMarker}>>`)
            leaks.push(
              `${steps.join(",")} cut at ${cut}: stdout ${JSON.stringify(stdout)} (events ${kinds.join(",")})`,
            );
        }
      }
      assert.deepEqual(leaks, []);
      // A stream ending in the first characters of a secret: they are held back (the next chunk could
      // complete it) across exit_status, and go out before the terminal event.
      for (const steps of [
        ["prefix", "exit"],
        ["exit", "prefix"],
        ["prefix", "progress", "exit", "partial"],
      ]) {
        const outcome = await invokeRaw(
          go,
          invokeRequest("split_secret", { steps, cut: 8 }, `prefix-${steps.join("-")}`),
        );
        const kinds = outcome.events.map((e) => e.event.case);
        assert.deepEqual(kinds.slice(-2), ["outputChunk", "result"], `${steps.join(",")}: ${kinds.join(",")}`);
        const stdout = Buffer.concat(
          outcome.events.flatMap((e) => (e.event.case === "outputChunk" ? [e.event.value.data] : [])),
        ).toString();
        assert.equal(stdout, `<<${secret.slice(0, 8)}`);
      }
    },
  );

  scenario(
    "go",
    "errors built from huge inputs are bounded: arguments, a result, a config, Preview, a tool name, a property name, a schema_version",
    async () => {
      const figures: string[] = [];
      const checkViolations = (error: ToolError, total: number, what: string) => {
        const details = error.details as { violations: unknown[]; violations_omitted?: number };
        assert.equal(details.violations.length, Math.min(total, maxReportedViolations), what);
        assert.equal(details.violations_omitted ?? 0, Math.max(0, total - maxReportedViolations), what);
        assert.ok(
          error.message.length <= maxErrorMessageChars + 64,
          `${what}: a message of ${error.message.length} characters`,
        );
      };
      const items = Array.from({ length: 300_000 }, () => true) as unknown as string[];
      const argsBytes = toBinary(
        InvokeRequestSchema,
        create(InvokeRequestSchema, { call: { id: "typed", toolName: "typed", arguments: { items } } }),
      ).byteLength;

      // 300,000 wrong-typed items: was a 21.8 MB error event with 300,000 violations.
      const invalid = onlyError(await invokeRaw(go, invokeRequest("typed", { items })));
      assert.equal(invalid.error.category, ToolErrorCategory.INVALID_ARGUMENTS);
      checkViolations(invalid.error, 300_000, "invalid arguments");
      assert.match(invalid.error.message, /\/items\/0 must be a string, not a boolean; .*; and 299,995 more$/);
      assert.ok(invalid.bytes < 16 * 1024, `the error event is ${invalid.bytes} bytes`);
      figures.push(
        `invalid arguments (${(argsBytes / 1e6).toFixed(1)} MB request, 300,000 violations): ${invalid.bytes} B event`,
      );

      const badResult = onlyError(await invokeRaw(go, invokeRequest("bad_output", { count: 300_000 })));
      assert.equal(badResult.error.category, ToolErrorCategory.UNKNOWN);
      checkViolations(badResult.error, 300_000, "invalid output");
      assert.ok(badResult.bytes < 16 * 1024, `the error event is ${badResult.bytes} bytes`);
      figures.push(`invalid output (300,000 violations): ${badResult.bytes} B event`);

      const huge = "k".repeat(1_000_000);
      const unknownKey = onlyError(await invokeRaw(go, invokeRequest("typed", { items: [], [huge]: 1 } as JsonObject)));
      checkViolations(unknownKey.error, 1, "a 1 MB property name");
      assert.ok(unknownKey.bytes < 16 * 1024, `the error event is ${unknownKey.bytes} bytes`);
      figures.push(`a 1 MB property name: ${unknownKey.bytes} B event`);

      const unknownTool = onlyError(await invokeRaw(go, invokeRequest(huge, {}, "unknown")));
      assert.equal(unknownTool.error.category, ToolErrorCategory.NOT_FOUND);
      assert.ok(unknownTool.bytes < 16 * 1024, `the error event is ${unknownTool.bytes} bytes`);
      figures.push(`a 1 MB tool name: ${unknownTool.bytes} B event`);

      const preview = await unaryRaw(
        go,
        "Preview",
        toBinary(
          PreviewRequestSchema,
          create(PreviewRequestSchema, { call: { id: "p", toolName: "typed", arguments: { items } } }),
        ),
      );
      assert.equal(preview.code, 3);
      assert.equal(preview.toolError?.category, ToolErrorCategory.INVALID_ARGUMENTS);
      checkViolations(preview.toolError as ToolError, 300_000, "Preview");
      assert.ok(
        preview.statusBytes + preview.message.length < 16 * 1024,
        `Preview's status: ${preview.statusBytes} B details, ${preview.message.length} characters`,
      );
      figures.push(`Preview: ${preview.statusBytes} B status details`);

      const config = await unaryRaw(
        go,
        "Configure",
        toBinary(
          ConfigureRequestSchema,
          create(ConfigureRequestSchema, { config: { tags: items } as unknown as JsonObject }),
        ),
      );
      assert.equal(config.code, 3);
      checkViolations(config.toolError as ToolError, 300_000, "Configure");
      assert.ok(
        config.statusBytes + config.message.length < 16 * 1024,
        `Configure's status: ${config.statusBytes} B details, ${config.message.length} characters`,
      );
      figures.push(`Configure (300,000 wrong tags): ${config.statusBytes} B status details`);

      const render = await unaryRaw(
        go,
        "Render",
        toBinary(RenderRequestSchema, create(RenderRequestSchema, { schemaVersion: huge })),
      );
      assert.equal(render.code, 12);
      assert.ok(render.message.length < 1024, `Render's message: ${render.message.length} characters`);
      figures.push(`Render of a 1 MB schema_version: a ${render.message.length}-character message`);
      console.log(`# bounded errors through ${hostLabels.go}: ${figures.join("; ")}`);
    },
  );

  scenario(
    "go",
    `arguments nested up to ${maxArgumentDepth} levels reach the handler; deeper, to 100,000 levels, are invalid_arguments naming the depth`,
    async () => {
      for (const depth of [1, 49, 50, 100, maxArgumentDepth]) {
        const outcome = await invokeRaw(go, field(1, deepCall(depth)));
        assert.equal(outcome.code, 0, `depth ${depth}: ${outcome.message}`);
        const last = outcome.events.at(-1)?.event;
        assert.equal(
          last?.case,
          "result",
          `depth ${depth}: ${last?.case === "error" ? last.value.message : last?.case}`,
        );
        assert.deepEqual(last.value.payload, { depth });
      }
      for (const depth of [maxArgumentDepth + 1, 10_000, 100_000]) {
        const { error } = onlyError(await invokeRaw(go, field(1, deepCall(depth))));
        assert.equal(error.category, ToolErrorCategory.INVALID_ARGUMENTS, `depth ${depth}`);
        assert.equal(
          error.message,
          `the arguments of deep nest ${depth.toLocaleString("en-US")} levels deep; at most ${maxArgumentDepth} levels are accepted`,
        );
        assert.deepEqual(error.details, { depth, max_depth: maxArgumentDepth });
      }
      const preview = await unaryRaw(go, "Preview", field(1, deepCall(10_000, "typed")));
      assert.equal(preview.code, 3, `${preview.code} ${preview.message}`);
      assert.match(preview.message, /the arguments of typed nest 10,000 levels deep/);
      assert.equal(preview.toolError?.category, ToolErrorCategory.INVALID_ARGUMENTS);
      const configure = await unaryRaw(go, "Configure", field(1, deepStructBytes(10_000)));
      assert.equal(configure.code, 3, `${configure.code} ${configure.message}`);
      assert.equal(configure.toolError?.category, ToolErrorCategory.INVALID_ARGUMENTS);
      assert.match(configure.message, /nest 10,000 levels deep/);
      await h.host.ping();
      console.log(
        `# deep arguments through ${hostLabels.go}: ${maxArgumentDepth} levels handled; ${maxArgumentDepth + 1}, 10,000 and 100,000 refused as invalid_arguments`,
      );
    },
  );
});
