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

export async function cancellationRule(
  launched: LaunchedProvider,
  schema: GetSchemaResponse,
  options: ConformanceOptions,
): Promise<RuleResult> {
  const section = "Invoke: cancellation";
  const candidates = schema.tools.filter(
    (t) =>
      t.kind === ToolKind.DATA_SOURCE || (options.allowResources && argumentsEntry(options.resourceArguments, t.name)),
  );
  const tool = candidates.find((t) => t.streaming) ?? candidates[0];
  const input = tool?.inputSchema ? (jsonSchemaFromWire(tool.inputSchema) as unknown) : undefined;
  if (!tool || !isToolSchemaDocument(input))
    return ruleResult("invoke.cancellation", section, "skip", "no tool this run may invoke");
  const args = argumentsEntry(options.resourceArguments, tool.name)?.args ?? (sampleValue(input) as JsonObject);
  const call = launched.invoke({
    id: `check-cancel-${randomUUID()}`,
    toolName: tool.name,
    arguments: args,
    callContext: { sessionId: "harness-tool-check", turnId: "1", workingDirectory: options.cwd ?? process.cwd() },
  });
  const seenBeforeCancel = call.events.length;
  call.cancel();
  const outcome = await call.done;
  const after = outcome.events.slice(seenBeforeCancel);
  const lateTerminal = after.find((e) => e.event.case === "result" || e.event.case === "error");
  let healthy = false;
  try {
    healthy =
      (await launched.ping()) === 1 && (await launched.getSchema(unaryTimeout)).tools.length === schema.tools.length;
  } catch {
    healthy = false;
  }
  if (!healthy)
    return ruleResult(
      "invoke.cancellation",
      section,
      "fail",
      `after cancelling ${tool.name} the provider no longer answers health checks and GetSchema`,
    );
  if (lateTerminal && outcome.code !== 0) {
    return ruleResult(
      "invoke.cancellation",
      section,
      "fail",
      `a terminal ${lateTerminal.event.case} arrived after ${tool.name} was cancelled`,
    );
  }
  return ruleResult(
    "invoke.cancellation",
    section,
    "pass",
    `cancelled ${tool.name}; ${lateTerminal ? "it had already finished" : "no terminal event followed"}; still healthy`,
  );
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
