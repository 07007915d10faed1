/**
 * The rules about Invoke: every call this run may make has a conforming stream (stream shape and
 * output_schema), schema-invalid arguments end in one invalid_arguments error, an unknown tool in
 * one classified error, and a cancelled call leaves the provider healthy. Resource and interactive
 * tools are invoked only when allowed, with the arguments the caller supplies.
 */
import { randomUUID } from "node:crypto";
import { durationMs } from "@bufbuild/protobuf/wkt";
import type { JsonObject } from "@bufbuild/protobuf";
import {
  ToolErrorCategory,
  ToolKind,
  type GetSchemaResponse,
  type ToolEvent,
  type ToolSchema,
} from "harness-tool/generated/pluggableharness/tool/v1/tool_pb.js";
import { isToolSchemaDocument, jsonSchemaFromWire } from "harness-tool/schema";
import type { LaunchedProvider } from "harness-tool/host";
import { categoryName } from "../terminal/wire-names.js";
import { argumentsEntry, expectKey } from "./arguments-file.js";
import { ruleResult, type RuleResult } from "./conformance-report.js";
import type { ConformanceOptions } from "./run-conformance.js";
import { invalidArgumentVariants, sampleValue } from "./sample-arguments.js";
import { unaryTimeout } from "./schema-rules.js";
import { checkInvokeStream } from "./stream-shape.js";

interface InvokeResult {
  events: readonly ToolEvent[];
  code: number;
  details: string;
  /** Set when the call outlived its bound and was cancelled: the bound, in ms. */
  cancelledAfterMs?: number;
}

/** What a call may take beyond its tool's default_timeout before check cancels it (the kernel's own deadline and a grace). */
const callGraceMs = 5000;
/** The bound of a call to a tool without a default_timeout, or to a tool that does not exist. */
const unboundedToolMs = 60_000;

/** How long check lets a call to `tool` run: its default_timeout and callGraceMs more (unboundedToolMs without one). */
export function callBoundMs(tool: ToolSchema | undefined): number {
  return tool?.defaultTimeout ? durationMs(tool.defaultTimeout) + callGraceMs : unboundedToolMs;
}

/** One Invoke, cancelled (as the kernel cancels a call past its deadline) when it runs longer than `boundMs`. */
async function invokeOnce(
  launched: LaunchedProvider,
  tool: string,
  args: JsonObject,
  cwd: string,
  boundMs: number,
): Promise<InvokeResult> {
  const call = launched.invoke({
    id: `check-${randomUUID()}`,
    toolName: tool,
    arguments: args,
    callContext: { sessionId: "harness-tool-check", turnId: "1", workingDirectory: cwd },
  });
  let overran = false;
  const timer = setTimeout(() => {
    overran = true;
    call.cancel();
  }, boundMs);
  try {
    const outcome = await call.done;
    return {
      events: outcome.events,
      code: outcome.code,
      details: outcome.details,
      ...(overran ? { cancelledAfterMs: boundMs } : {}),
    };
  } finally {
    clearTimeout(timer);
  }
}

function terminalOf(events: readonly ToolEvent[]): ToolEvent | undefined {
  return events.find((e) => e.event.case === "result" || e.event.case === "error");
}

export async function invokeRules(
  launched: LaunchedProvider,
  schema: GetSchemaResponse,
  options: ConformanceOptions,
): Promise<RuleResult[]> {
  const rows: RuleResult[] = [];
  const cwd = options.cwd ?? process.cwd();
  for (const tool of schema.tools) {
    const input = tool.inputSchema ? (jsonSchemaFromWire(tool.inputSchema) as unknown) : undefined;
    if (!isToolSchemaDocument(input)) {
      rows.push(
        ruleResult(
          `invoke.valid:${tool.name}`,
          "Invoke",
          "skip",
          "the input schema is outside the subset (see the schema rows)",
        ),
      );
      continue;
    }
    const invocable = tool.kind === ToolKind.DATA_SOURCE || options.allowResources === true;
    // How to give a resource or interactive tool its arguments, with the file's shape for this tool.
    const argsFileLine = JSON.stringify({ [tool.name]: sampleValue(input) });
    if (!invocable) {
      const kind = tool.kind === ToolKind.INTERACTIVE ? "interactive" : "resource";
      rows.push(
        ruleResult(
          `invoke.valid:${tool.name}`,
          "Invoke",
          "skip",
          `${kind} tool, not invoked unless allowed: --allow-resources --cwd <scratch dir> --args-file args.json, with args.json holding ${argsFileLine}`,
        ),
      );
      continue;
    }
    const entry = argumentsEntry(options.resourceArguments, tool.name);
    const valid = entry?.args ?? (sampleValue(input) as JsonObject);
    if (tool.kind !== ToolKind.DATA_SOURCE && !entry) {
      rows.push(
        ruleResult(
          `invoke.valid:${tool.name}`,
          "Invoke",
          "skip",
          `no arguments for it in the --args-file: add ${argsFileLine}`,
        ),
      );
    } else {
      options.onStage?.(`the sample call to ${tool.name}`);
      const got = await invokeOnce(launched, tool.name, valid, cwd, callBoundMs(tool));
      rows.push(
        streamRow(`invoke.valid:${tool.name}`, tool, got, (terminal) =>
          outcomeVerdict(tool.name, valid, terminal, entry?.expect),
        ),
      );
    }
    // Only tools this run may invoke get invalid arguments too: a provider that fails to validate
    // them would run a resource with them.
    const failures: string[] = [];
    options.onStage?.(`the invalid-argument calls to ${tool.name}`);
    for (const variant of invalidArgumentVariants(input)) {
      const got = await invokeOnce(launched, tool.name, variant.arguments, cwd, callBoundMs(tool));
      const problems = checkInvokeStream(tool, got.events, { cancelled: false });
      const terminal = terminalOf(got.events);
      if (got.cancelledAfterMs !== undefined) failures.push(`${variant.why}: ${overranText(got.cancelledAfterMs)}`);
      else if (got.code !== 0)
        failures.push(
          `${variant.why}: the stream failed with gRPC status ${got.code} (${got.details}) instead of an invalid_arguments event`,
        );
      else if (problems.length > 0) failures.push(`${variant.why}: ${problems.map((p) => p.message).join("; ")}`);
      else if (
        terminal?.event.case !== "error" ||
        terminal.event.value.category !== ToolErrorCategory.INVALID_ARGUMENTS
      ) {
        const what =
          terminal?.event.case === "error" ? `a ${categoryName(terminal.event.value.category)} error` : "a result";
        failures.push(`${variant.why}: got ${what}, not invalid_arguments`);
      }
    }
    rows.push(
      ruleResult(
        `invoke.invalid-arguments:${tool.name}`,
        "error taxonomy: invalid_arguments",
        failures.length === 0 ? "pass" : "fail",
        failures.join("; "),
      ),
    );
  }
  return rows;
}

/** Why a call check cancelled fails its rule. */
function overranText(boundMs: number): string {
  return `no terminal event within ${boundMs / 1000}s (the tool's default_timeout and ${callGraceMs / 1000}s more, else ${unboundedToolMs / 1000}s): cancelled; a handler that never settles holds the kernel's turn until its deadline`;
}

/** The outcome's name, as `$expect` names it: "result" or the error's category. */
function outcomeName(terminal: ToolEvent | undefined): string {
  return terminal?.event.case === "error" ? categoryName(terminal.event.value.category) : "result";
}

/**
 * How a sample call's ending counts, beyond its stream's shape. With `$expect`, the outcome must be
 * the one named. Without it, `unknown` (a handler that threw, a dependency that failed) fails the
 * rule: a provider whose every call breaks is no conforming provider; `invalid_arguments` for
 * schema-valid arguments is a warning.
 */
function outcomeVerdict(
  tool: string,
  args: JsonObject,
  terminal: ToolEvent | undefined,
  expect: string | undefined,
): { status: RuleResult["status"]; why: string } | undefined {
  const got = outcomeName(terminal);
  const message = terminal?.event.case === "error" ? `: ${terminal.event.value.message}` : "";
  if (expect !== undefined) {
    return got === expect
      ? { status: "pass", why: `ended with ${got}, as the --args-file expects${message}` }
      : { status: "fail", why: `ended with ${got}${message}; the --args-file expects ${expect}` };
  }
  if (got === "unknown") {
    const marked = JSON.stringify({ [tool]: { ...args, [expectKey]: "unknown" } });
    return {
      status: "fail",
      why: `ended with unknown${message}: fix the failure (the provider's stderr and the error's details say more), give working arguments in --args-file, or mark the outcome expected: ${marked}`,
    };
  }
  if (got === "invalid_arguments")
    return {
      status: "warn",
      why: `schema-valid arguments ${JSON.stringify(args)} were refused as invalid_arguments${message}`,
    };
  return undefined;
}

function streamRow(
  rule: string,
  tool: ToolSchema,
  got: InvokeResult,
  extra?: (terminal: ToolEvent | undefined) => { status: RuleResult["status"]; why: string } | undefined,
): RuleResult {
  if (got.cancelledAfterMs !== undefined) return ruleResult(rule, "Invoke", "fail", overranText(got.cancelledAfterMs));
  if (got.code !== 0)
    return ruleResult(rule, "Invoke", "fail", `the stream failed with gRPC status ${got.code}: ${got.details}`);
  const problems = checkInvokeStream(tool, got.events, { cancelled: false });
  if (problems.length > 0)
    return ruleResult(rule, "Invoke: stream shape", "fail", problems.map((p) => p.message).join("; "));
  const terminal = terminalOf(got.events);
  const override = extra?.(terminal);
  if (override) return ruleResult(rule, "Invoke", override.status, override.why);
  const ending =
    terminal?.event.case === "error"
      ? `ended with ${categoryName(terminal.event.value.category)}: ${terminal.event.value.message}`
      : "ended with a conforming result";
  return ruleResult(rule, "Invoke: stream shape, output_schema", "pass", `${got.events.length} event(s), ${ending}`);
}

/** How long the cancellation rule waits for a streaming call's first event before it cancels. */
const cancelAfterFirstEventMs = 1000;

/**
 * Cancellation, on every streaming tool this run may invoke (the slow ones are where a cancel
 * matters), else on the first tool it may invoke: each call is cancelled once its first event
 * arrives (or after a second), must end within its bound with no terminal event after the cancel,
 * and the provider must answer health checks and GetSchema afterwards.
 */
export async function cancellationRule(
  launched: LaunchedProvider,
  schema: GetSchemaResponse,
  options: ConformanceOptions,
): Promise<RuleResult> {
  const section = "Invoke: cancellation";
  const candidates = schema.tools.filter(
    (t) =>
      isToolSchemaDocument(t.inputSchema ? (jsonSchemaFromWire(t.inputSchema) as unknown) : undefined) &&
      (t.kind === ToolKind.DATA_SOURCE ||
        (options.allowResources && argumentsEntry(options.resourceArguments, t.name))),
  );
  const streaming = candidates.filter((t) => t.streaming);
  const tools = streaming.length > 0 ? streaming : candidates.slice(0, 1);
  if (tools.length === 0) return ruleResult("invoke.cancellation", section, "skip", "no tool this run may invoke");
  const passed: string[] = [];
  for (const tool of tools) {
    options.onStage?.(`the cancellation of ${tool.name}`);
    const cancelled = await cancelOnce(launched, tool, options);
    if (!cancelled.ok) return ruleResult("invoke.cancellation", section, "fail", cancelled.why);
    if (!(await stillHealthy(launched, schema)))
      return ruleResult(
        "invoke.cancellation",
        section,
        "fail",
        `after cancelling ${tool.name} the provider no longer answers health checks and GetSchema`,
      );
    passed.push(`${tool.name}: ${cancelled.why}`);
  }
  return ruleResult("invoke.cancellation", section, "pass", `cancelled ${passed.join("; ")}; still healthy`);
}

/** One call cancelled mid-stream: whether it ended as a cancelled call must, and what happened. */
async function cancelOnce(
  launched: LaunchedProvider,
  tool: ToolSchema,
  options: ConformanceOptions,
): Promise<{ ok: boolean; why: string }> {
  const input = tool.inputSchema ? (jsonSchemaFromWire(tool.inputSchema) as unknown) : undefined;
  const sample = isToolSchemaDocument(input) ? (sampleValue(input) as JsonObject) : {};
  const args = argumentsEntry(options.resourceArguments, tool.name)?.args ?? sample;
  const call = launched.invoke({
    id: `check-cancel-${randomUUID()}`,
    toolName: tool.name,
    arguments: args,
    callContext: { sessionId: "harness-tool-check", turnId: "1", workingDirectory: options.cwd ?? process.cwd() },
  });
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, Math.min(cancelAfterFirstEventMs, callBoundMs(tool)));
  });
  await Promise.race([call.waitForEvents(1).catch(() => undefined), waited, call.done.catch(() => undefined)]);
  clearTimeout(timer);
  const seenBeforeCancel = call.events.length;
  const endedBefore = seenBeforeCancel > 0 && terminalOf(call.events) !== undefined;
  call.cancel();
  const bound = callBoundMs(tool);
  let boundTimer: NodeJS.Timeout | undefined;
  const outcome = await Promise.race([
    call.done,
    new Promise<undefined>((resolve) => {
      boundTimer = setTimeout(() => resolve(undefined), bound);
    }),
  ]);
  clearTimeout(boundTimer);
  if (outcome === undefined)
    return { ok: false, why: `${tool.name} did not end within ${bound / 1000}s of its cancellation` };
  const lateTerminal = outcome.events
    .slice(seenBeforeCancel)
    .find((e) => e.event.case === "result" || e.event.case === "error");
  if (lateTerminal && outcome.code !== 0)
    return { ok: false, why: `a terminal ${lateTerminal.event.case} arrived after ${tool.name} was cancelled` };
  const what =
    endedBefore || lateTerminal
      ? "it had already finished"
      : `cancelled after ${seenBeforeCancel} event(s), no terminal event followed`;
  return { ok: true, why: what };
}

/** How long after a cancel the provider is given to take it in before it is probed. */
const settleAfterCancelMs = 200;

/** The provider answers a health check and GetSchema, with the same tools, once the cancel has reached it. */
async function stillHealthy(launched: LaunchedProvider, schema: GetSchemaResponse): Promise<boolean> {
  await new Promise((resolve) => setTimeout(resolve, settleAfterCancelMs));
  try {
    return (
      (await launched.ping()) === 1 && (await launched.getSchema(unaryTimeout)).tools.length === schema.tools.length
    );
  } catch {
    return false;
  }
}

/** An unknown tool gives one classified error (or a failed RPC), never a result. */
export async function unknownToolRule(launched: LaunchedProvider, cwd: string): Promise<RuleResult> {
  const unknown = await invokeOnce(launched, `no_such_tool_${randomUUID().slice(0, 8)}`, {}, cwd, unboundedToolMs);
  const t = terminalOf(unknown.events);
  const classified =
    unknown.code !== 0 ||
    (unknown.events.length === 1 &&
      t?.event.case === "error" &&
      t.event.value.category !== ToolErrorCategory.UNSPECIFIED);
  if (!classified)
    return ruleResult("invoke.unknown-tool", "Invoke", "fail", "an unknown tool did not give one classified error");
  const why =
    t?.event.case === "error"
      ? `${categoryName(t.event.value.category)}: ${t.event.value.message}`
      : `gRPC status ${unknown.code}`;
  return ruleResult("invoke.unknown-tool", "Invoke", "pass", why);
}
