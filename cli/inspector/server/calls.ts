/**
 * The tool calls fired from the page: each Invoke started, followed event by event to its end (with
 * what the inspector noticed of the protocol on the way), kept in the history, cancelled on request
 * or at `--timeout` as the kernel cancels one.
 */
import { randomUUID } from "node:crypto";
import type { JsonObject } from "@bufbuild/protobuf";
import { status as grpcStatus } from "@grpc/grpc-js";
import { OutputStream } from "harness-tool/generated/pluggableharness/tool/v1/tool_pb.js";
import { ProviderCallError, type InvokeCall, type LaunchedProvider } from "harness-tool/host";
import type { CallEndView, CallEventView, CallView, InvokeRequestBody } from "../protocol/page-protocol.js";
import { callEventView, CallStream } from "./call-stream.js";
import type { PageChannel } from "./page-channel.js";
import { exitsWithin } from "./provider-load.js";
import { historyLimit, InspectRequestError, isJsonObject, statusName, type ProviderLink } from "./session-state.js";
import type { ToolList } from "./tools.js";

interface RunningCall {
  readonly view: CallView & { events: CallEventView[]; end?: CallEndView };
  /** The RPC while it runs; dropped at its end, with every event the host client kept for it. */
  rpc: InvokeCall | undefined;
}

/** The Invokes of this session, running and ended. */
export class CallHistory {
  readonly #link: ProviderLink;
  readonly #page: PageChannel;
  readonly #tools: ToolList;
  readonly #calls: RunningCall[] = [];

  constructor(link: ProviderLink, page: PageChannel, tools: ToolList) {
    this.#link = link;
    this.#page = page;
    this.#tools = tools;
  }

  /** The calls as the page's history shows them. */
  views(): CallView[] {
    return this.#calls.map((c) => c.view);
  }

  /** True while any call runs. */
  get running(): boolean {
    return this.#calls.some((c) => c.rpc);
  }

  /** Starts an Invoke; its events arrive on the stream. */
  invoke(body: InvokeRequestBody): CallView {
    if (typeof body.tool !== "string" || body.tool === "") throw new InspectRequestError("tool must be a tool's name");
    if (!isJsonObject(body.args)) throw new InspectRequestError("args must be a JSON object");
    const workingDirectory = this.#link.workingDirectoryOf(body.workingDirectory);
    const id = `inspect-${randomUUID()}`;
    this.#link.turn++;
    const rpc = this.#link.launched.invoke({
      id,
      toolName: body.tool,
      arguments: body.args as JsonObject,
      callContext: this.#link.callContext(String(this.#link.turn), workingDirectory),
    });
    const running: RunningCall = {
      view: { id, tool: body.tool, args: body.args, workingDirectory, startedAt: Date.now(), events: [] },
      rpc,
    };
    this.#calls.push(running);
    if (this.#calls.length > historyLimit) this.#calls.splice(0, this.#calls.length - historyLimit);
    this.#page.publish({ kind: "call-start", call: running.view });
    // --timeout: a call still running then is cancelled, as the kernel cancels one past its deadline.
    const timeoutMs = this.#link.callTimeoutMs;
    const bound = timeoutMs === undefined ? undefined : setTimeout(() => rpc.cancel(), timeoutMs);
    bound?.unref();
    void this.#follow(running, rpc, performance.now(), this.#link.launched).finally(() => clearTimeout(bound));
    return this.#page.json(running.view);
  }

  /** Cancels the call `id`'s RPC if it runs; false when there is no such call. */
  cancel(id: string): boolean {
    const call = this.#calls.find((c) => c.view.id === id);
    call?.rpc?.cancel();
    return call !== undefined;
  }

  /** Cancels every running call (a restart or the end of the session). */
  cancelAll(): void {
    for (const call of this.#calls) call.rpc?.cancel();
  }

  async #follow(call: RunningCall, rpc: InvokeCall, started: number, launched: LaunchedProvider): Promise<void> {
    const stream = new CallStream(this.#page.keeper.redactor, (event) => {
      call.view.events.push(event);
      this.#page.publish({ kind: "call-event", id: call.view.id, event });
    });
    const schema = this.#tools.schema(call.view.tool);
    let firstEventMs: number | undefined;
    let terminal = false;
    let problem: string | undefined;
    try {
      for await (const event of rpc) {
        firstEventMs ??= performance.now() - started;
        const e = event.event;
        if (e.case === "outputChunk") {
          stream.output(e.value.stream === OutputStream.STDERR ? "stderr" : "stdout", e.value.data);
          continue;
        }
        if (e.case === "result" || e.case === "error") {
          stream.endOutput();
          terminal = true;
        }
        const view = callEventView(event, schema);
        if (view) stream.add(view);
      }
    } catch (error) {
      if (!(error instanceof ProviderCallError)) problem = `the inspector lost the call: ${(error as Error).message}`;
    }
    if (!terminal) stream.endOutput();
    stream.flush();
    const outcome = await rpc.done;
    call.rpc = undefined;
    if (!problem && !terminal && !outcome.cancelled) {
      problem =
        outcome.code === grpcStatus.OK
          ? "the stream closed without a result or an error (a provider bug)"
          : `the RPC failed before a terminal event${(await exitsWithin(launched, 500)) ? ": the provider exited during the call" : ""}`;
    }
    const end: CallEndView = {
      status: statusName(outcome.code),
      details: outcome.details,
      cancelled: outcome.cancelled,
      durationMs: Math.round(performance.now() - started),
      ...(firstEventMs !== undefined ? { firstEventMs: Math.round(firstEventMs) } : {}),
      ...(problem ? { problem } : {}),
    };
    call.view.end = end;
    this.#page.publish({ kind: "call-end", id: call.view.id, end });
  }
}
