/**
 * The rules about the provider as a go-plugin process: the handshake line, the magic cookie,
 * health, a stdout that carries nothing but the handshake, and Shutdown.
 */
import { spawn } from "node:child_process";
import { kernelEnvironment, killGraceMs, type LaunchedProvider } from "harness-tool/host";
import type { ProviderCommand } from "../provider/provider-target.js";
import { truncate } from "../terminal/terminal-width.js";
import { ruleResult, type RuleResult } from "./conformance-report.js";

/** The handshake line, as the provider printed it. */
export function handshakeRule(launched: LaunchedProvider): RuleResult {
  const h = launched.handshake;
  return ruleResult(
    "handshake.line",
    "go-plugin: handshake",
    "pass",
    `${h.coreVersion}|${h.appVersion}|${h.network}|${h.address}|${h.protocol}`,
  );
}

/** The rows for a provider that never made its handshake. */
export function handshakeFailedRules(error: unknown): RuleResult[] {
  return [
    ruleResult("handshake.line", "go-plugin: handshake", "fail", (error as Error).message.split("\n")[0] ?? ""),
    // A provider that fails to start with the right cookie also "refuses" a wrong one: that shows nothing.
    ruleResult(
      "handshake.cookie-refused",
      "go-plugin: magic cookie",
      "skip",
      "the provider does not start with the right cookie either",
    ),
  ];
}

/** Runs a provider with a wrong cookie: it must refuse, on stderr, with nothing on stdout. */
export async function cookieRefusedRule(provider: ProviderCommand): Promise<RuleResult> {
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
    return ruleResult(
      "handshake.cookie-refused",
      section,
      "fail",
      "with a wrong cookie the provider kept running instead of exiting",
    );
  }
  if (stdout !== "")
    return ruleResult(
      "handshake.cookie-refused",
      section,
      "fail",
      `with a wrong cookie it printed on stdout: ${JSON.stringify(truncate(stdout, 80))}`,
    );
  if (ended.code === 0)
    return ruleResult("handshake.cookie-refused", section, "fail", "with a wrong cookie it exited 0");
  if (stderr.trim() === "")
    return ruleResult(
      "handshake.cookie-refused",
      section,
      "fail",
      "with a wrong cookie it exited without explaining why on stderr",
    );
  return ruleResult(
    "handshake.cookie-refused",
    section,
    "pass",
    `exit ${ended.code}: ${truncate(stderr.trim().split("\n")[0] ?? "", 80)}`,
  );
}

/** go-plugin's health service answers SERVING for "plugin". */
export async function healthRule(launched: LaunchedProvider): Promise<RuleResult> {
  const section = 'go-plugin: health ("plugin")';
  try {
    const status = await launched.ping();
    return ruleResult(
      "health.serving",
      section,
      status === 1 ? "pass" : "fail",
      status === 1 ? "SERVING" : `status ${status}`,
    );
  } catch (e) {
    return ruleResult("health.serving", section, "fail", (e as Error).message);
  }
}

/** Nothing but the handshake line went to stdout. */
export function stdoutCleanRule(launched: LaunchedProvider): RuleResult {
  const stray = launched.strayStdout;
  return ruleResult(
    "handshake.stdout-clean",
    "go-plugin: stdout",
    stray.length === 0 ? "pass" : "fail",
    stray.length === 0
      ? "only the handshake line on stdout"
      : `${stray.length} line(s) after the handshake, e.g. ${JSON.stringify(truncate(stray[0] ?? "", 60))}`,
  );
}

/** Kills the provider as go-plugin does: it must exit by itself after Shutdown. */
export async function shutdownRule(launched: LaunchedProvider): Promise<RuleResult> {
  const kill = await launched.kill();
  return ruleResult(
    "shutdown.graceful",
    "go-plugin: Shutdown",
    kill.graceful ? "pass" : "fail",
    kill.graceful
      ? `exited ${kill.durationMs.toFixed(0)} ms after Kill()`
      : `still running ${killGraceMs} ms after Kill(): SIGKILLed`,
  );
}
