/**
 * Configure: decodes ConfigureRequest.config into the typed config, prepares the allowed roots,
 * learns the secrets to redact and runs the provider's configure hook, bounded by the call's
 * deadline. A rejected configuration is INVALID_ARGUMENT with a ToolError (`invalid_arguments`,
 * the failing paths in `details.violations`) for the status details.
 *
 * seed: Configure — MUST reject with a structured error on missing required fields rather than
 * deferring failure to the first Invoke: INVALID_ARGUMENT with a ToolError packed in
 * google.rpc.Status.details (docs/runtime.md#the-error-surface).
 */
import type { JsonObject } from "@bufbuild/protobuf";
import { GrpcCode, RpcStatusError } from "../../errors/rpc-status-error.js";
import type { ProviderDefinition } from "../../provider/provider-definition.js";
import type { ValueViolation } from "../../schema/value-violation.js";
import { normalizeError, wireError } from "../../errors/classify-error.js";
import { ToolError } from "../../errors/tool-error.js";
import { unaryFailure } from "../../errors/unary-failure.js";
import { collectSecrets, minimumSubstringSecretLength } from "../../redaction/collect-secrets.js";
import { boundedMessage, reportViolations } from "../../errors/input-error-bounds.js";
import { msBeforeDeadline } from "./call-deadline.js";
import { type LongTimeout, setLongTimeout } from "./long-timeout.js";
import { prepareRoots } from "./resolve-path.js";
import type { AcceptedConfig } from "./service-runtime.js";

/** An accepted configuration and the secret values it carries. */
export interface ConfigureOutcome {
  readonly accepted: AcceptedConfig;
  readonly secrets: readonly string[];
  /** Diagnostics for stderr (never containing a secret). */
  readonly warnings: readonly string[];
}

/** A rejection naming the violations, bounded however many there are (input-error-bounds.ts). */
function rejected(prefix: string, violations: readonly ValueViolation[]): RpcStatusError {
  const report = reportViolations(violations);
  const error = wireError("invalid_arguments", boundedMessage(`${prefix}${report.summary}`), {
    details: report.details,
  });
  return new RpcStatusError(GrpcCode.INVALID_ARGUMENT, error.message, error);
}

/**
 * Decodes and accepts a configuration, or throws an RpcStatusError: INVALID_ARGUMENT for a
 * missing required field, a wrong type, an unknown attribute or a bad allowed root; INTERNAL when
 * the provider's own decoder throws (its stack to `log`). Nothing is redacted here: the service's unary exit does that,
 * with this request's secrets already known to it.
 */
export function acceptConfig(
  provider: ProviderDefinition<unknown>,
  raw: JsonObject,
  log?: (message: string, stack: string) => void,
): ConfigureOutcome {
  const attributes = provider.config.attributes;
  const rawSecrets = collectSecrets(attributes, raw);
  let decoded: ReturnType<typeof provider.config.decode>;
  try {
    decoded = provider.config.decode(raw);
  } catch (error) {
    const wire = normalizeError(error, {
      context: "the provider's configuration decoder threw",
      ...(log ? { log } : {}),
    });
    throw new RpcStatusError(GrpcCode.INTERNAL, wire.message, wire);
  }
  if (!decoded.ok) {
    throw rejected("configuration rejected: ", decoded.violations);
  }
  const config = decoded.value;
  let roots: readonly string[] | undefined;
  if (provider.allowedRoots) {
    try {
      roots = prepareRoots(provider.allowedRoots(config));
    } catch (error) {
      throw rejected("configuration rejected: the allowed roots are not usable: ", [
        { path: "", message: (error as Error)?.message ?? String(error) },
      ]);
    }
  }
  const secrets = [...rawSecrets];
  // A generated decoder may rename fields; its value is walked by attribute name when it can be.
  if (typeof config === "object" && config !== null) secrets.push(...collectSecrets(attributes, config as JsonObject));
  const warnings: string[] = [];
  for (const a of attributes) {
    if (!a.sensitive) continue;
    const short = collectSecrets([a], raw).filter((s) => s !== "" && s.length < minimumSubstringSecretLength);
    if (short.length > 0) {
      warnings.push(
        `[WARN] harness-tool: sensitive attribute ${JSON.stringify(a.name)} has a value shorter than ${minimumSubstringSecretLength} characters: it is redacted only where a whole string equals it`,
      );
    }
  }
  return { accepted: { config, roots }, secrets, warnings };
}

/** How long the configure hook may take when the host sets no deadline on Configure. */
export const defaultConfigureHookTimeoutMs = 30_000;

/** How a configure hook runs. */
export interface ConfigureHookRun {
  /** The Configure call's deadline; undefined: the host set none (then `fallbackMs`). */
  readonly deadline: Date | undefined;
  /** The bound without a deadline. */
  readonly fallbackMs: number;
  /** The kernel's log, for the stack of a hook that threw something other than a ToolError. */
  readonly log: (message: string, stack: string) => void;
}

/**
 * Runs the provider's configure hook on an accepted config (docs/runtime.md#the-configure-hook):
 * resolves when it accepts; throws an RpcStatusError when it refuses (its ToolError's category
 * decides the code: `invalid_arguments`, as configError builds, is INVALID_ARGUMENT), throws
 * anything else (`unknown`, INTERNAL) or outlives the deadline (`timeout`, DEADLINE_EXCEEDED).
 */
export async function runConfigureHook(
  provider: ProviderDefinition<unknown>,
  accepted: AcceptedConfig,
  run: ConfigureHookRun,
): Promise<void> {
  const hook = provider.configure;
  if (!hook) return;
  // Answered before the host's deadline, so it reads why (call-deadline.ts).
  const timeoutMs = run.deadline === undefined ? run.fallbackMs : msBeforeDeadline(run.deadline);
  const controller = new AbortController();
  let timer: LongTimeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setLongTimeout(() => {
      const why =
        run.deadline === undefined
          ? `its bound of ${timeoutMs} ms (the host set no deadline)`
          : `the Configure call's deadline (${timeoutMs} ms)`;
      const error = new ToolError(
        "timeout",
        `the provider's configure hook did not finish within ${why}: configuration not accepted`,
        { retryable: true },
      );
      controller.abort(error);
      reject(error);
    }, timeoutMs);
  });
  try {
    await Promise.race([Promise.resolve().then(() => hook(accepted.config, { signal: controller.signal })), deadline]);
  } catch (error) {
    throw unaryFailure(error, { context: "configuration rejected: the provider's configure hook threw", log: run.log });
  } finally {
    timer?.clear();
  }
}

/** The configuration used before any Configure: the decoded defaults, when `{}` decodes. */
export function defaultConfig(provider: ProviderDefinition<unknown>): AcceptedConfig | undefined {
  try {
    return acceptConfig(provider, {}).accepted;
  } catch {
    return undefined;
  }
}
