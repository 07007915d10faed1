/**
 * How the reliability suite starts test/runtime/reliability/fixtures/fault-provider.ts: one node process
 * with tsx's loader (as a compiled provider is one process), through launch() or by hand.
 */
import { launch, type LaunchedProvider } from "harness-tool/testing";
import type { ToolEvent } from "harness-tool/generated/pluggableharness/tool/v1/tool_pb.js";
import { typeScriptProvider } from "../../interop/providers.js";

/** The fault provider as the kernel would exec it. */
export const faultProvider = typeScriptProvider("faults", "test/runtime/reliability/fixtures/fault-provider.ts");

/** Launches the fault provider through harness-tool/testing (tsx start-up is slow on a loaded machine: a generous handshake wait). */
export function launchFaultProvider(env: { readonly [name: string]: string } = {}): Promise<LaunchedProvider> {
  return launch(faultProvider.command, {
    args: faultProvider.args,
    cwd: faultProvider.cwd,
    env,
    handshakeTimeoutMs: 60_000,
  });
}

/** A call context like the kernel's. */
export const callContext = (sessionId = "s-rel") => ({ sessionId, turnId: "t-1", workingDirectory: "/tmp" });

/** The terminal events (result or error) among `events`. */
export function terminals(events: readonly ToolEvent[]): ToolEvent[] {
  return events.filter((e) => e.event.case === "result" || e.event.case === "error");
}

/** The pids a stubborn_child call printed ("pids <shell> <sleep>"), from its output chunks. */
export function printedPids(events: readonly ToolEvent[]): number[] {
  const printed = events
    .flatMap((e) => (e.event.case === "outputChunk" ? [new TextDecoder().decode(e.event.value.data)] : []))
    .join("");
  const match = /pids (\d+) (\d+)/.exec(printed);
  return match ? [Number(match[1]), Number(match[2])] : [];
}
