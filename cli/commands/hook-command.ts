/**
 * `harness-tool hook <provider> <point> --mode M --payload f.json`: configures the provider, fires
 * one hook point at it as the kernel's dispatcher would (HookSubscriberService.DispatchHook) and
 * shows the answer, with what the kernel makes of it. Exit codes: 0 an answer of the mode's shape,
 * 1 an error or an answer the kernel rejects as INVALID_RESPONSE, 2 a usage or launch problem,
 * 130 cancelled with Ctrl-C.
 */
import { create, equals, type JsonObject, toJson } from "@bufbuild/protobuf";
import {
  DispatchHookRequestSchema,
  DispatchHookResponseSchema,
  HookPayloadSchema,
  type DispatchHookRequest,
  type DispatchHookResponse,
  type HookPayload,
} from "harness-tool/generated/pluggableharness/hook/v1/hook_pb.js";
import type { HookModeName, HookPointName } from "harness-tool";
import { hookModeTable, hookPointNames, hookPointTable } from "harness-tool/hook-points";
import { HookDispatchError, type LaunchedProvider } from "harness-tool/host";
import { LogLevel } from "harness-tool/generated/pluggableharness/log/v1/log_pb.js";
import { hookPayloadFromJson, hookPayloadJson, HookPayloadJsonError } from "../check/hook-payload-json.js";
import { checkHookResponse } from "../check/hook-response-shape.js";
import { defineCommand } from "./command-definition.js";
import { readJsonObjectFile, withCtrlC } from "./command-options.js";
import { configureProvider } from "./configure-provider.js";
import { CommandDeadline } from "../provider/command-deadline.js";
import { launchProvider, providerExitReport } from "../provider/launch-provider.js";
import { type ProviderCommand, providerTarget } from "../provider/provider-target.js";
import { writeWrapped } from "../terminal/error-lines.js";
import { UsageError } from "../terminal/usage-error.js";
import { nearestName } from "../terminal/fault-wording.js";
import { hookFailureLine, kernelOnHookError, verdictName } from "../terminal/hook-answer-wording.js";

/** Options of the hook command. */
export interface HookOptions {
  readonly point: HookPointName;
  readonly mode: HookModeName;
  /** The point's payload (HookPayload's variant), parsed from --payload. */
  readonly payload: HookPayload;
  readonly subscriptionId?: string;
  /** A JSON file holding the Configure struct. */
  readonly configFile?: string;
  /** The deadline the kernel would set on the call (default_hook_timeout_ms). */
  readonly timeoutMs: number;
  readonly json: boolean;
  readonly out: NodeJS.WritableStream;
  readonly err: NodeJS.WritableStream;
  /** Aborted on Ctrl-C: cancels the call as the kernel does when the turn is aborted. */
  readonly interrupt: AbortSignal;
}

/** The point named on the command line; a usage error listing the names otherwise. */
export function parseHookPoint(text: string): HookPointName {
  if (!(hookPointNames as readonly string[]).includes(text)) {
    const near = nearestName(text, hookPointNames);
    throw new UsageError(`no hook point ${JSON.stringify(text)}${near ? `; did you mean ${near}?` : ""}`, {
      seeHelp: true,
    });
  }
  return text as HookPointName;
}

/** --mode's value; a usage error listing the modes otherwise. */
export function parseHookMode(text: string): HookModeName {
  if (!Object.hasOwn(hookModeTable, text))
    throw new UsageError(`--mode ${JSON.stringify(text)}: choose observe, transform or veto`);
  return text as HookModeName;
}

/** The file's JSON as `point`'s payload message (protobuf JSON, e.g. PlanReadyPayload); a usage error saying what is wrong. */
export function readHookPayload(file: string, point: HookPointName): HookPayload {
  const json = readJsonObjectFile(file, "--payload");
  try {
    return hookPayloadFromJson(point, json);
  } catch (e) {
    if (e instanceof HookPayloadJsonError) throw new UsageError(`--payload ${file} is ${e.message}`);
    throw e;
  }
}

/** The answer for a person: the outcome, and for a transform the payload it returned. */
function showResponse(response: DispatchHookResponse, request: HookPayload, out: NodeJS.WritableStream): void {
  switch (response.outcome.case) {
    case "observe":
      out.write("observe: acknowledged\n");
      break;
    case "veto":
      out.write(`veto: ${verdictName(response.outcome.value.decision)}\n`);
      break;
    case "transform": {
      const returned = response.outcome.value.payload;
      const same = returned !== undefined && equals(HookPayloadSchema, returned, request);
      out.write(`transform: ${same ? "the payload unchanged" : "the payload changed"}\n`);
      if (returned) out.write(`${JSON.stringify(hookPayloadJson(returned), null, 2)}\n`);
      break;
    }
    default:
      out.write("no outcome\n");
  }
}

/**
 * The KernelCallbackService.Log calls the provider made from `first` on (a handler's `ctx.log` and
 * `ctx.kernel.log`: an observer's whole effect), one line each, as the kernel's log would hold them.
 */
function printKernelLogs(launched: LaunchedProvider, first: number, err: NodeJS.WritableStream): void {
  for (const request of launched.kernel.calls.log.slice(first)) {
    const entry = request.entry;
    if (!entry) continue;
    const fields = entry.fields && Object.keys(entry.fields).length > 0 ? ` ${JSON.stringify(entry.fields)}` : "";
    err.write(`kernel log [${LogLevel[entry.level]?.toLowerCase() ?? entry.level}]: ${entry.message}${fields}\n`);
  }
}

/** Runs the command; resolves to the exit code. */
export async function hookCommand(provider: ProviderCommand, options: HookOptions): Promise<number> {
  const config = options.configFile === undefined ? {} : readJsonObjectFile(options.configFile, "--config");
  // The whole command is bounded too: the launch and Configure get hookLaunchAllowanceMs beside the call's own deadline.
  const deadline = new CommandDeadline(options.timeoutMs + hookLaunchAllowanceMs, {
    longer: String(options.timeoutMs * 2),
  });
  return deadline.run(() => launchAndFire(provider, config, options, deadline));
}

/** What the hook command adds to the call's --timeout for the launch, Configure and GetSchema, so nothing before the call hangs. */
export const hookLaunchAllowanceMs = 30_000;

async function launchAndFire(
  provider: ProviderCommand,
  config: JsonObject,
  options: HookOptions,
  deadline: CommandDeadline,
): Promise<number> {
  const launched = await launchProvider(provider, deadline.launchOptions());
  // Log calls from here on are the hook's (Configure's own are not shown).
  let firstLog = Number.POSITIVE_INFINITY;
  try {
    deadline.enter("Configure");
    await configureProvider(launched, config, {
      configFile: options.configFile,
      timeoutMs: deadline.callTimeoutMs(30_000),
    });
    firstLog = launched.kernel.calls.log.length;
    deadline.enter("GetSchema");
    const schema = await launched.getSchema({ timeoutMs: deadline.callTimeoutMs(10_000) });
    deadline.enter(`DispatchHook (${options.point})`);
    if (!schema.supportedHookPoints.includes(hookPointTable[options.point].point)) {
      writeWrapped(
        options.err,
        `note: the provider does not advertise ${options.point} in GetSchema, so the kernel refuses a hook{} block for it`,
      );
    }
    const request: DispatchHookRequest = create(DispatchHookRequestSchema, {
      payload: options.payload,
      mode: hookModeTable[options.mode],
      ...(options.subscriptionId === undefined ? {} : { subscriptionId: options.subscriptionId }),
    });
    let response: DispatchHookResponse;
    try {
      response = await launched.dispatchHookRequest(request, {
        timeoutMs: options.timeoutMs,
        signal: options.interrupt,
      });
    } catch (e) {
      if (!(e instanceof HookDispatchError)) throw e;
      if (options.interrupt.aborted) {
        options.err.write("cancelled\n");
        return 130;
      }
      const exit = await providerExitReport(launched);
      writeWrapped(options.err, exit ? `DispatchHook failed: ${exit}` : hookFailureLine(e, options.mode));
      return 1;
    }
    if (options.json) options.out.write(`${JSON.stringify(toJson(DispatchHookResponseSchema, response))}\n`);
    else showResponse(response, options.payload, options.out);
    const problems = checkHookResponse(request, response);
    if (problems.length === 0) return 0;
    writeWrapped(
      options.err,
      `the kernel rejects this answer as INVALID_RESPONSE (${kernelOnHookError[options.mode]}): ${problems.map((p) => p.message).join("; ")}`,
    );
    return 1;
  } finally {
    deadline.enter("Shutdown");
    // After Shutdown, so a line a handler logged without awaiting it has had until then to arrive.
    await launched.kill();
    printKernelLogs(launched, firstLog, options.err);
  }
}

/** The command line of `harness-tool hook`. */
export const hookCommandDefinition = defineCommand({
  name: "hook",
  summary: "configure a provider, fire one hook point at it and show the answer",
  description: [
    "Starts the provider as the kernel does, sends Configure (the --config file, or {}), then one DispatchHook: the point's payload from --payload (protobuf JSON of the point's message, e.g. PlanReadyPayload for plan-ready) in the mode --mode names. Prints the answer (acknowledged, allow or deny, or the transformed payload) and says when the kernel would reject it as INVALID_RESPONSE or what it does with an error; on stderr, the lines the handler logged through the kernel (KernelCallbackService.Log).",
    `The points: ${hookPointNames.join(", ")}. Exit codes: 0 an answer of the mode's shape, 1 an error or an answer the kernel rejects, 2 a usage or launch problem or a config the provider refused, 130 cancelled with Ctrl-C.`,
  ].join("\n\n"),
  positionals: [{ name: "provider" }, { name: "point" }],
  flags: {
    mode: {
      type: "string",
      value: "observe|transform|veto",
      required: true,
      description: "the mode of the subscription (agent.hcl's hook{} block)",
    },
    payload: {
      type: "string",
      value: "file.json",
      required: true,
      description: 'the point\'s payload as protobuf JSON, e.g. {"plan": {"items": []}} for plan-ready',
    },
    config: { type: "string", value: "file.json", description: "a JSON object file sent as the Configure struct" },
    subscription: {
      type: "string",
      value: "id",
      description: "DispatchHookRequest.subscription_id, for a provider with two hook{} blocks at one point",
    },
    timeout: {
      type: "string",
      value: "ms",
      default: "10000",
      description:
        "the call's deadline, as the kernel's default_hook_timeout_ms; the whole command gets 30 s more for the launch and Configure",
    },
    json: { type: "boolean", description: "print the DispatchHookResponse as JSON instead" },
  },
  providerArgs: true,
  examples: [
    "harness-tool hook dist/provider.mjs plan-ready --mode veto --payload plan.json",
    "harness-tool hook . plan-ready --mode veto --payload plan.json --config c.json",
    "harness-tool hook . pre-model-call --mode transform --payload call.json --json",
  ],
  run: async ({ values, positionals, providerArgs }, { out, err }) => {
    const [target, pointText] = positionals as [string, string];
    // The provider first, as every command reads it (cli/provider/), then the point.
    const provider = providerTarget(target, providerArgs);
    const point = parseHookPoint(pointText);
    const mode = parseHookMode(values.mode);
    const timeoutMs = Number(values.timeout);
    if (!Number.isInteger(timeoutMs) || timeoutMs <= 0)
      throw new UsageError(`--timeout ${values.timeout}: give the deadline in milliseconds, e.g. --timeout 5000`);
    const payload = readHookPayload(values.payload, point);
    return withCtrlC((interrupt) =>
      hookCommand(provider, {
        point,
        mode,
        payload,
        ...(values.subscription === undefined ? {} : { subscriptionId: values.subscription }),
        ...(values.config ? { configFile: values.config } : {}),
        timeoutMs,
        json: values.json,
        out,
        err,
        interrupt,
      }),
    );
  },
});
