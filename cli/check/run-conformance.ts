/**
 * `harness-tool check <provider>`: the conformance suite, run against any provider binary whatever
 * its language. It launches the provider exactly as the kernel does and checks the handshake,
 * health, Describe, every GetSchema rule (the same invariants the plugin and the runtime enforce),
 * Configure, Invoke stream shape and output conformance on every call it makes, invalid arguments,
 * cancellation and Shutdown. Resource and interactive tools are invoked only when allowed, with
 * arguments the caller supplies.
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { equals, type JsonObject } from "@bufbuild/protobuf";
import { Category } from "harness-tool/generated/pluggableharness/common/v1/common_pb.js";
import { AttrType } from "harness-tool/generated/pluggableharness/config/v1/config_pb.js";
import {
  GetSchemaResponseSchema,
  ToolErrorCategory,
  ToolKind,
  type GetSchemaResponse,
  type ToolEvent,
  type ToolSchema,
} from "harness-tool/generated/pluggableharness/tool/v1/tool_pb.js";
import { checkToolDeclarations, invariantSources, isToolSchemaDocument, jsonSchemaFromWire, toolDeclarationFromWire, type InvariantRule } from "harness-tool";
import { kernelEnvironment, killGraceMs, launch, ProviderCallError, type LaunchedProvider } from "harness-tool/testing";
import { PROTOCOL_VERSION } from "harness-tool";
import type { ProviderCommand } from "../provider/provider-target.js";
import { truncate } from "../terminal/terminal-width.js";
import { categoryName } from "../terminal/wire-names.js";
import type { RuleResult } from "./conformance-report.js";
import { invalidArgumentVariants, sampleValue } from "./sample-arguments.js";
import { checkInvokeStream } from "./stream-shape.js";

/** Options of a conformance run. */
export interface ConformanceOptions {
  /** The Configure struct; default {} (or sample values for required attributes). */
  readonly config?: JsonObject;
  /** Invoke resource and interactive tools too, with these arguments by tool name. */
  readonly allowResources?: boolean;
  readonly resourceArguments?: { readonly [tool: string]: JsonObject };
  /** CallContext.working_directory for every call; default: the current directory. */
  readonly cwd?: string;
}

/** Rules the wire form cannot express, so they are not checked on a running provider. */
const notOnTheWire = new Set<InvariantRule>(["idempotent-required", "process-backed-streams"]);

const unaryTimeout = { timeoutMs: 10_000 };

function result(rule: string, section: string, status: RuleResult["status"], why = ""): RuleResult {
  return { rule, section, status, why };
}

/** Runs a provider with a wrong cookie: it must refuse, on stderr, with nothing on stdout. */
async function checkCookieRefused(provider: ProviderCommand): Promise<RuleResult> {
  const section = "go-plugin: magic cookie";
  const env = kernelEnvironment({ PLUGGABLEHARNESS_AGENT_PLUGIN: "not-the-cookie" });
  const child = spawn(provider.command, [...provider.args], { env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString("utf8")));
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString("utf8")));
  const ended = await new Promise<{ code: number | null } | "timeout">((resolve) => {
    const timer = setTimeout(() => resolve("timeout"), 5000);
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code });
    });
    child.once("error", () => {
      clearTimeout(timer);
      resolve({ code: null });
    });
  });
  if (ended === "timeout") {
    child.kill("SIGKILL");
    return result("handshake.cookie-refused", section, "fail", "with a wrong cookie the provider kept running instead of exiting");
  }
  if (stdout !== "")
    return result("handshake.cookie-refused", section, "fail", `with a wrong cookie it printed on stdout: ${JSON.stringify(truncate(stdout, 80))}`);
  if (ended.code === 0) return result("handshake.cookie-refused", section, "fail", "with a wrong cookie it exited 0");
  if (stderr.trim() === "") return result("handshake.cookie-refused", section, "fail", "with a wrong cookie it exited without explaining why on stderr");
  return result("handshake.cookie-refused", section, "pass", `exit ${ended.code}: ${truncate(stderr.trim().split("\n")[0] ?? "", 80)}`);
}

function schemaRules(schema: GetSchemaResponse): RuleResult[] {
  const declarations = schema.tools.map(toolDeclarationFromWire);
  const violations = checkToolDeclarations(declarations);
  const rows: RuleResult[] = [];
  for (const rule of Object.keys(invariantSources) as InvariantRule[]) {
    if (notOnTheWire.has(rule)) continue;
    const broken = violations.filter((v) => v.rule === rule);
    const id = `schema.${rule}`;
    if (broken.length === 0) rows.push(result(id, invariantSources[rule], "pass"));
    else {
      const status = broken.every((v) => v.severity === "warning") ? "warn" : "fail";
      rows.push(result(id, invariantSources[rule], status, broken.map((v) => `${v.tool}: ${v.message}`).join("; ")));
    }
  }
  rows.push(resourceKeysRule(schema));
  return rows;
}

/**
 * A resource tool declared `safe: true` without key_fields lets the kernel run any two of its
 * calls at once, writes to the same thing included. That is a legitimate claim (annotations.proto:
 * "safe = true alone claims no two calls can conflict"), so it is never an error and the plugin does
 * not warn on every generate; check, where an author reviews what the kernel will trust, says so.
 */
export function resourceKeysRule(schema: GetSchemaResponse): RuleResult {
  const section = "GetSchema: resource concurrency without key_fields (review)";
  const unkeyed = schema.tools.filter((t) => t.kind === ToolKind.RESOURCE && t.concurrency?.safe === true && t.concurrency.keyFields.length === 0);
  if (unkeyed.length === 0) return result("schema.resource-keys", section, "pass");
  return result(
    "schema.resource-keys",
    section,
    "warn",
    unkeyed
      .map(
        (t) =>
          `${t.name}: safe = true with no key_fields, so the kernel may run two of its calls at once; name the input fields that identify what a call changes in key_fields, unless no two calls can ever conflict`,
      )
      .join("; "),
  );
}

/** Sample values for the config's required attributes (used when no --config is given). */
function sampleConfig(schema: GetSchemaResponse): JsonObject {
  const out: JsonObject = {};
  for (const a of schema.configSchema?.attributes ?? []) {
    if (!a.required) continue;
    switch (a.type) {
      case AttrType.NUMBER:
        out[a.name] = 1;
        break;
      case AttrType.BOOL:
        out[a.name] = false;
        break;
      case AttrType.LIST_STRING:
      case AttrType.LIST_NUMBER:
        out[a.name] = [];
        break;
      case AttrType.MAP_STRING:
      case AttrType.OBJECT:
        out[a.name] = {};
        break;
      default:
        out[a.name] = "example";
    }
  }
  return out;
}

interface InvokeResult {
  events: readonly ToolEvent[];
  code: number;
  details: string;
}

async function invokeOnce(launched: LaunchedProvider, tool: string, args: JsonObject, cwd: string): Promise<InvokeResult> {
  const call = launched.invoke({
    id: `check-${randomUUID()}`,
    toolName: tool,
    arguments: args,
    callContext: { sessionId: "harness-tool-check", turnId: "1", workingDirectory: cwd },
  });
  const outcome = await call.done;
  return { events: outcome.events, code: outcome.code, details: outcome.details };
}

function terminalOf(events: readonly ToolEvent[]): ToolEvent | undefined {
  return events.find((e) => e.event.case === "result" || e.event.case === "error");
}

async function invokeRules(launched: LaunchedProvider, schema: GetSchemaResponse, options: ConformanceOptions): Promise<RuleResult[]> {
  const rows: RuleResult[] = [];
  const cwd = options.cwd ?? process.cwd();
  for (const tool of schema.tools) {
    const input = tool.inputSchema ? (jsonSchemaFromWire(tool.inputSchema) as unknown) : undefined;
    if (!isToolSchemaDocument(input)) {
      rows.push(result(`invoke.valid:${tool.name}`, "Invoke", "skip", "the input schema is outside the subset (see the schema rows)"));
      continue;
    }
    const invocable = tool.kind === ToolKind.DATA_SOURCE || options.allowResources === true;
    // How to give a resource or interactive tool its arguments, with the file's shape for this tool.
    const argsFileLine = JSON.stringify({ [tool.name]: sampleValue(input) });
    if (!invocable) {
      const kind = tool.kind === ToolKind.INTERACTIVE ? "interactive" : "resource";
      rows.push(
        result(
          `invoke.valid:${tool.name}`,
          "Invoke",
          "skip",
          `${kind} tool, not invoked unless allowed: --allow-resources --args-file args.json, with args.json holding ${argsFileLine}`,
        ),
      );
      continue;
    }
    const valid = options.resourceArguments?.[tool.name] ?? (sampleValue(input) as JsonObject);
    if (tool.kind !== ToolKind.DATA_SOURCE && !options.resourceArguments?.[tool.name]) {
      rows.push(result(`invoke.valid:${tool.name}`, "Invoke", "skip", `no arguments for it in the --args-file: add ${argsFileLine}`));
    } else {
      rows.push(
        streamRow(`invoke.valid:${tool.name}`, tool, await invokeOnce(launched, tool.name, valid, cwd), (terminal) =>
          terminal?.event.case === "error" && terminal.event.value.category === ToolErrorCategory.INVALID_ARGUMENTS
            ? { status: "warn", why: `schema-valid arguments ${JSON.stringify(valid)} were refused as invalid_arguments: ${terminal.event.value.message}` }
            : undefined,
        ),
      );
    }
    // Only tools this run may invoke get invalid arguments too: a provider that fails to validate
    // them would run a resource with them.
    const failures: string[] = [];
    for (const variant of invalidArgumentVariants(input)) {
      const got = await invokeOnce(launched, tool.name, variant.arguments, cwd);
      const problems = checkInvokeStream(tool, got.events, { cancelled: false });
      const terminal = terminalOf(got.events);
      if (got.code !== 0)
        failures.push(`${variant.why}: the stream failed with gRPC status ${got.code} (${got.details}) instead of an invalid_arguments event`);
      else if (problems.length > 0) failures.push(`${variant.why}: ${problems.map((p) => p.message).join("; ")}`);
      else if (terminal?.event.case !== "error" || terminal.event.value.category !== ToolErrorCategory.INVALID_ARGUMENTS) {
        const what = terminal?.event.case === "error" ? `a ${categoryName(terminal.event.value.category)} error` : "a result";
        failures.push(`${variant.why}: got ${what}, not invalid_arguments`);
      }
    }
    rows.push(
      result(`invoke.invalid-arguments:${tool.name}`, "error taxonomy: invalid_arguments", failures.length === 0 ? "pass" : "fail", failures.join("; ")),
    );
  }
  return rows;
}

function streamRow(
  rule: string,
  tool: ToolSchema,
  got: InvokeResult,
  extra?: (terminal: ToolEvent | undefined) => { status: RuleResult["status"]; why: string } | undefined,
): RuleResult {
  if (got.code !== 0) return result(rule, "Invoke", "fail", `the stream failed with gRPC status ${got.code}: ${got.details}`);
  const problems = checkInvokeStream(tool, got.events, { cancelled: false });
  if (problems.length > 0) return result(rule, "Invoke: stream shape", "fail", problems.map((p) => p.message).join("; "));
  const terminal = terminalOf(got.events);
  const override = extra?.(terminal);
  if (override) return result(rule, "Invoke", override.status, override.why);
  const ending =
    terminal?.event.case === "error"
      ? `ended with ${categoryName(terminal.event.value.category)}: ${terminal.event.value.message}`
      : "ended with a conforming result";
  return result(rule, "Invoke: stream shape, output_schema", "pass", `${got.events.length} event(s), ${ending}`);
}

async function cancellationRule(launched: LaunchedProvider, schema: GetSchemaResponse, options: ConformanceOptions): Promise<RuleResult> {
  const section = "Invoke: cancellation";
  const candidates = schema.tools.filter((t) => t.kind === ToolKind.DATA_SOURCE || (options.allowResources && options.resourceArguments?.[t.name]));
  const tool = candidates.find((t) => t.streaming) ?? candidates[0];
  const input = tool?.inputSchema ? (jsonSchemaFromWire(tool.inputSchema) as unknown) : undefined;
  if (!tool || !isToolSchemaDocument(input)) return result("invoke.cancellation", section, "skip", "no tool this run may invoke");
  const args = options.resourceArguments?.[tool.name] ?? (sampleValue(input) as JsonObject);
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
    healthy = (await launched.ping()) === 1 && (await launched.getSchema(unaryTimeout)).tools.length === schema.tools.length;
  } catch {
    healthy = false;
  }
  if (!healthy)
    return result("invoke.cancellation", section, "fail", `after cancelling ${tool.name} the provider no longer answers health checks and GetSchema`);
  if (lateTerminal && outcome.code !== 0) {
    return result("invoke.cancellation", section, "fail", `a terminal ${lateTerminal.event.case} arrived after ${tool.name} was cancelled`);
  }
  return result(
    "invoke.cancellation",
    section,
    "pass",
    `cancelled ${tool.name}; ${lateTerminal ? "it had already finished" : "no terminal event followed"}; still healthy`,
  );
}

/** Runs every rule and returns the rows, in order. */
export async function runConformance(provider: ProviderCommand, options: ConformanceOptions = {}): Promise<RuleResult[]> {
  const rows: RuleResult[] = [];
  let launched: LaunchedProvider;
  try {
    launched = await launch(provider.command, { args: provider.args });
  } catch (e) {
    // The executable could not be run at all (spawn's ENOENT, EACCES): a launch problem, not a rule.
    if (typeof (e as NodeJS.ErrnoException).code === "string") throw e;
    rows.push(result("handshake.line", "go-plugin: handshake", "fail", (e as Error).message.split("\n")[0] ?? ""));
    // A provider that fails to start with the right cookie also "refuses" a wrong one: that shows nothing.
    rows.push(result("handshake.cookie-refused", "go-plugin: magic cookie", "skip", "the provider does not start with the right cookie either"));
    return rows;
  }
  let killed = false;
  try {
    const h = launched.handshake;
    rows.push(result("handshake.line", "go-plugin: handshake", "pass", `${h.coreVersion}|${h.appVersion}|${h.network}|${h.address}|${h.protocol}`));
    rows.push(await checkCookieRefused(provider));
    try {
      const status = await launched.ping();
      rows.push(result("health.serving", 'go-plugin: health ("plugin")', status === 1 ? "pass" : "fail", status === 1 ? "SERVING" : `status ${status}`));
    } catch (e) {
      rows.push(result("health.serving", 'go-plugin: health ("plugin")', "fail", (e as Error).message));
    }
    try {
      const d = (await launched.describe(unaryTimeout)).producer;
      const problems: string[] = [];
      if (!d) problems.push("no producer");
      else {
        if (d.name === "") problems.push("empty name");
        if (d.version === "") problems.push("empty version");
        if (d.category !== Category.TOOL) problems.push(`category ${Category[d.category] ?? d.category}, not TOOL`);
        if (d.protocolVersion !== PROTOCOL_VERSION) problems.push(`protocol_version ${d.protocolVersion}, not ${PROTOCOL_VERSION}`);
      }
      rows.push(
        result(
          "describe.producer",
          "Describe",
          problems.length === 0 ? "pass" : "fail",
          problems.length === 0 ? `${d?.name} ${d?.version} ${d?.source}` : problems.join("; "),
        ),
      );
    } catch (e) {
      rows.push(result("describe.producer", "Describe", "fail", e instanceof ProviderCallError ? `Describe failed: ${e.details}` : (e as Error).message));
    }
    let schema: GetSchemaResponse;
    try {
      schema = await launched.getSchema(unaryTimeout);
      const again = await launched.getSchema(unaryTimeout);
      rows.push(
        result(
          "schema.static",
          "GetSchema: re-queryable, static",
          equals(GetSchemaResponseSchema, schema, again) ? "pass" : "fail",
          equals(GetSchemaResponseSchema, schema, again) ? `${schema.tools.length} tool(s)` : "two GetSchema calls returned different answers",
        ),
      );
    } catch (e) {
      rows.push(result("schema.static", "GetSchema", "fail", (e as Error).message));
      return rows;
    }
    rows.push(...schemaRules(schema));

    const required = (schema.configSchema?.attributes ?? []).filter((a) => a.required);
    if (required.length === 0) rows.push(result("configure.rejects-missing-required", "Configure", "skip", "the config schema has no required attribute"));
    else {
      try {
        await launched.configure({}, unaryTimeout);
        rows.push(
          result(
            "configure.rejects-missing-required",
            "Configure",
            "fail",
            `Configure({}) was accepted though ${required.map((a) => a.name).join(", ")} are required`,
          ),
        );
      } catch (e) {
        const ok = e instanceof ProviderCallError && (e.code === 3 || e.code === 9) && e.toolError !== undefined;
        rows.push(
          result(
            "configure.rejects-missing-required",
            "Configure",
            ok ? "pass" : "fail",
            e instanceof ProviderCallError
              ? ok
                ? `rejected with status ${e.code}: ${e.toolError?.message ?? ""}`
                : `rejected with status ${e.code} but ${e.toolError ? "" : "no ToolError in the status details"}${e.code === 3 || e.code === 9 ? "" : " (expected INVALID_ARGUMENT or FAILED_PRECONDITION)"}`
              : (e as Error).message,
          ),
        );
      }
    }
    const config = options.config ?? sampleConfig(schema);
    let configured = false;
    try {
      await launched.configure(config, unaryTimeout);
      configured = true;
      rows.push(result("configure.accepts", "Configure", "pass", options.config ? "the given config" : "sample values for the required attributes"));
    } catch (e) {
      rows.push(
        result(
          "configure.accepts",
          "Configure",
          "fail",
          e instanceof ProviderCallError ? `Configure rejected the config: ${e.toolError?.message ?? e.details}` : (e as Error).message,
        ),
      );
    }
    if (configured) {
      rows.push(...(await invokeRules(launched, schema, options)));
      const unknown = await invokeOnce(launched, `no_such_tool_${randomUUID().slice(0, 8)}`, {}, options.cwd ?? process.cwd());
      const t = terminalOf(unknown.events);
      const classified =
        unknown.code !== 0 || (unknown.events.length === 1 && t?.event.case === "error" && t.event.value.category !== ToolErrorCategory.UNSPECIFIED);
      rows.push(
        result(
          "invoke.unknown-tool",
          "Invoke",
          classified ? "pass" : "fail",
          classified
            ? t?.event.case === "error"
              ? `${categoryName(t.event.value.category)}: ${t.event.value.message}`
              : `gRPC status ${unknown.code}`
            : "an unknown tool did not give one classified error",
        ),
      );
      rows.push(await cancellationRule(launched, schema, options));
    } else {
      rows.push(result("invoke.*", "Invoke", "skip", "Configure failed"));
    }
    const stray = launched.strayStdout;
    rows.push(
      result(
        "handshake.stdout-clean",
        "go-plugin: stdout",
        stray.length === 0 ? "pass" : "fail",
        stray.length === 0
          ? "only the handshake line on stdout"
          : `${stray.length} line(s) after the handshake, e.g. ${JSON.stringify(truncate(stray[0] ?? "", 60))}`,
      ),
    );
    const kill = await launched.kill();
    killed = true;
    rows.push(
      result(
        "shutdown.graceful",
        "go-plugin: Shutdown",
        kill.graceful ? "pass" : "fail",
        kill.graceful ? `exited ${kill.durationMs.toFixed(0)} ms after Kill()` : `still running ${killGraceMs} ms after Kill(): SIGKILLed`,
      ),
    );
    return rows;
  } finally {
    if (!killed) await launched.kill();
  }
}
