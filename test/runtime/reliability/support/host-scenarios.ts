/**
 * The host going away, as scenarios the fast suite runs once and the soak runs in cycles:
 * the host SIGKILLed mid-call, and the broker stream ending with the connection still open.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { create } from "@bufbuild/protobuf";
import { Metadata, type ClientDuplexStream } from "@grpc/grpc-js";
import {
  InvokeRequestSchema,
  ToolErrorCategory,
  ToolService,
  type ToolEvent,
} from "harness-tool/generated/pluggableharness/tool/v1/tool_pb.js";
import { kernelEnvironment, parseHandshakeLine } from "harness-tool/testing";
import { goPluginServices } from "../../../../runtime/transport/grpc-service-definition.js";
import { grpcTarget, ServiceClient } from "../../../../runtime/transport/service-client.js";
import { eventually, fileGone, processGone } from "../../interop/process-state.js";
import { callContext, faultProvider, printedPids, terminals } from "./fault-provider.js";

/**
 * How long killed children may take to disappear: the runtime's SIGTERM → SIGKILL grace is
 * 500 ms; the rest is slack for a loaded 2-core CI machine. Not a performance bound.
 */
export const childrenGoneWithinMs = 5000;
/**
 * The protocol's own bound: go-plugin SIGKILLs a provider 2 s after Kill(), and a provider whose
 * host died must be gone as fast (docs/transport.md#the-kernels-handshake). Measured here: ~0.6 s
 * (the stubborn child's 500 ms kill grace dominates).
 */
export const protocolExitMs = 2000;

/**
 * An intermediate host (fixtures/sigkill-host.ts) launches the fault provider and starts a call
 * whose process group ignores SIGTERM; the host is SIGKILLed. The provider must exit within the
 * protocol's 2 s, remove its socket, and take the call's children with it. Returns how long the
 * provider took to exit after its host was gone. `env`: operator extras for the provider; with
 * HARNESS_TOOL_SUPERVISOR=off the provider's own watch of its host is what ends it (under the
 * supervisor, the supervisor's watch does too).
 */
export async function hostSigkilledScenario(env: { readonly [name: string]: string } = {}): Promise<number> {
  const host = spawn(
    faultProvider.command,
    [
      ...faultProvider.args.slice(0, 3),
      "test/runtime/reliability/fixtures/sigkill-host.ts",
      JSON.stringify(faultProvider),
      JSON.stringify(env),
    ],
    {
      cwd: faultProvider.cwd,
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  const hostExited = new Promise<void>((resolve) => host.once("exit", () => resolve()));
  let reported: { pid: number; address: string; children: number[] } | undefined;
  try {
    reported = JSON.parse(
      await new Promise<string>((resolve) => createInterface({ input: host.stdout }).once("line", resolve)),
    ) as typeof reported;
    const { pid, address, children } = reported!;
    assert.ok(!processGone(pid) && !fileGone(address));
    host.kill("SIGKILL");
    await hostExited;
    const diedAt = performance.now();
    // Polled every 25 ms; the bound is the protocol's (see protocolExitMs).
    const gone = await eventually(() => processGone(pid), protocolExitMs + 3000);
    const tookMs = performance.now() - diedAt;
    assert.ok(gone, "the orphaned provider exited");
    assert.ok(tookMs <= protocolExitMs, `the provider took ${tookMs.toFixed(0)} ms to exit (the protocol allows 2 s)`);
    assert.ok(fileGone(address), "its socket file is gone");
    for (const child of children)
      assert.ok(await eventually(() => processGone(child), childrenGoneWithinMs), `child ${child} is gone`);
    return tookMs;
  } finally {
    host.kill("SIGKILL");
    for (const pid of [reported?.pid, ...(reported?.children ?? [])])
      if (pid !== undefined && !processGone(pid)) process.kill(pid, "SIGKILL");
  }
}

/**
 * The provider launched by hand; the test holds the gRPC connection and the broker stream, starts
 * a process-backed call, then ends the broker stream (the host's broker closed) without Shutdown
 * and without closing the connection (and the parent, this process, stays alive): the broker
 * ending alone must make the provider exit in order, its socket and children gone, no result
 * claimed for the interrupted call.
 */
export async function brokerEndedScenario(): Promise<void> {
  const child = spawn(faultProvider.command, faultProvider.args, {
    cwd: faultProvider.cwd,
    env: kernelEnvironment(),
    stdio: ["ignore", "pipe", "ignore"],
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const line = await new Promise<string>((resolve) => createInterface({ input: child.stdout }).once("line", resolve));
  const handshake = parseHandshakeLine(line, [1]);
  const client = new ServiceClient(ToolService, grpcTarget(handshake.network, handshake.address));
  const m = goPluginServices.broker.startStream;
  const broker = client.raw.makeBidiStreamRequest(
    m.path,
    m.requestSerialize,
    m.responseDeserialize,
    new Metadata(),
  ) as ClientDuplexStream<Uint8Array, Uint8Array>;
  broker.on("error", () => {});
  broker.on("data", () => {});
  let pids: number[] = [];
  try {
    const events: ToolEvent[] = [];
    const stream = client.serverStream(
      ToolService.method.invoke,
      create(InvokeRequestSchema, { call: { id: "held", toolName: "stubborn_child", callContext: callContext() } }),
    );
    const streamEnded = new Promise<void>((resolve) => {
      stream.on("data", (r: { event?: ToolEvent }) => {
        if (r.event) events.push(r.event);
      });
      stream.on("error", () => resolve());
      stream.on("end", () => resolve());
    });
    assert.ok(await eventually(() => printedPids(events).length === 2, 30_000), "the call started its process group");
    pids = printedPids(events);
    broker.end(); // the host's broker closes; the gRPC connection stays up
    const code = await Promise.race([
      exited,
      new Promise<"running">((resolve) => setTimeout(() => resolve("running"), protocolExitMs + 3000)),
    ]);
    assert.equal(code, 0, "an orderly exit");
    assert.ok(fileGone(handshake.address), "its socket file is gone");
    await streamEnded;
    assert.ok(!events.some((e) => e.event.case === "result"), "no result claimed for the interrupted call");
    const ends = terminals(events);
    assert.ok(ends.length <= 1, "at most one terminal event");
    if (ends[0]?.event.case === "error") assert.equal(ends[0].event.value.category, ToolErrorCategory.CANCELLED);
    for (const pid of pids)
      assert.ok(await eventually(() => processGone(pid), childrenGoneWithinMs), `child ${pid} is gone`);
  } finally {
    broker.cancel();
    client.close();
    child.kill("SIGKILL");
    for (const pid of pids) if (!processGone(pid)) process.kill(pid, "SIGKILL");
  }
}
