/**
 * What the inspector's server and its page say to each other: the JSON of the HTTP API and of the
 * event stream. Types only, imported by both sides (the page bundle erases them), so a field renamed
 * on one side fails the type check of the other. Everything here has passed the inspector's
 * redaction before it leaves the server.
 */

/** A JSON value, as the page receives it. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A node of the JSON-Schema subset (input_schema, output_schema), as plain JSON Schema. */
export interface JsonSchemaView {
  readonly type?: "object" | "string" | "number" | "boolean" | "array";
  readonly description?: string;
  readonly properties?: { readonly [name: string]: JsonSchemaView };
  readonly required?: readonly string[];
  readonly items?: JsonSchemaView;
  readonly enum?: readonly string[];
}

/** One tool as the tool list and its form show it. */
export interface ToolView {
  readonly name: string;
  readonly description: string;
  readonly kind: string;
  readonly risk: string;
  readonly streaming: boolean;
  /** "exclusive", "parallel", "by key1,key2" or "-". */
  readonly concurrency: string;
  /** "30s" or "-". */
  readonly timeout: string;
  readonly idempotent: boolean;
  readonly terminatesTurn: boolean;
  readonly inputSchema: JsonSchemaView;
  readonly outputSchema: JsonSchemaView;
  /**
   * Whether the tool has a Preview, asked once Configure is accepted (server/tools.ts,
   * probePreviews): true when the provider answers it, false when it has none (UNIMPLEMENTED);
   * absent until known.
   */
  readonly preview?: boolean;
}

/** One attribute of the provider's config schema. */
export interface ConfigAttributeView {
  readonly name: string;
  /** "string", "number", "bool", "list_string", "list_number", "map_string", "object". */
  readonly type: string;
  readonly required: boolean;
  readonly sensitive: boolean;
  readonly description: string;
  readonly objectAttributes?: readonly ConfigAttributeView[];
  readonly defaultJson?: string;
}

/** Where Configure stands. */
export interface ConfigStateView {
  /**
   * The config in force: the one the provider accepted last (a rejected Configure leaves it in
   * place), `{}` when none was; sensitive values replaced by the redaction marker.
   */
  readonly config: { readonly [key: string]: Json };
  /** True once the provider accepted a config: `config` is then the one it runs with. */
  readonly inForce: boolean;
  /** "accepted" or "rejected" (the last Configure), or "unconfigured" when none was sent. */
  readonly status: "accepted" | "rejected" | "unconfigured";
  /** The values of the last Configure when it was rejected, masked as `config` is. */
  readonly rejected?: { readonly [key: string]: Json };
  /** The rejection: the ToolError's message and details. */
  readonly error?: { readonly message: string; readonly details?: Json };
  /** Names of the sensitive attributes of the config in force that hold a value (shown as set, never shown). */
  readonly secretsSet: readonly string[];
}

/** The answer of POST /api/restart. */
export type RestartAnswerView =
  | { readonly ok: true; readonly pid: number }
  | { readonly ok: false; readonly message: string };

/** The provider's identity: Describe's ProducerRef and the process. */
export interface IdentityView {
  readonly name: string;
  readonly version: string;
  readonly source: string;
  readonly category: string;
  readonly protocolVersion: number;
  /** The command line the inspector launched, for display. */
  readonly command: string;
  /** The same as the executable and its arguments. */
  readonly executable: string;
  readonly args: readonly string[];
  readonly pid: number;
  /**
   * Set once the provider process has ended by itself ("the provider exited with code 3 (last
   * error: ...)") or a restart failed ("the restart failed: ...").
   */
  readonly exited?: string;
}

/** A provider stderr line at the level go-plugin's host logs it. */
export interface LogLineView {
  readonly seq: number;
  readonly level: "trace" | "debug" | "info" | "warn" | "error";
  readonly message: string;
  readonly fields: { readonly [key: string]: Json };
  readonly atMs: number;
}

/** One KernelCallbackService call the provider made, with the reply it got. */
export interface CallbackView {
  readonly seq: number;
  readonly method: "log" | "emit" | "runSession" | "countTokens";
  /** The request as protobuf JSON (Emit's payload decoded as text when it is UTF-8). */
  readonly request: Json;
  /** The canned reply it was answered with (none for Log). */
  readonly reply?: Json;
  readonly atMs: number;
}

/** The replies the inspector's kernel gives, as protobuf JSON of EmitResult, RunSessionResult, CountTokensResult. */
export interface CannedRepliesView {
  readonly emit: Json;
  readonly runSession: Json;
  readonly countTokens: Json;
}

/** One event of a call, as the page shows it. */
export type CallEventView =
  | { readonly type: "output"; readonly stream: "stdout" | "stderr"; readonly text: string }
  | { readonly type: "progress"; readonly message: string; readonly fraction?: number }
  | { readonly type: "partial"; readonly payload: Json }
  | { readonly type: "exit"; readonly exitCode: number; readonly signal?: string }
  | {
      readonly type: "result";
      readonly payload: Json;
      readonly violations: readonly { readonly path: string; readonly message: string }[];
    }
  | {
      readonly type: "error";
      readonly category: string;
      readonly message: string;
      readonly retryable: boolean;
      readonly details?: Json;
    };

/** How a call's stream ended. */
export interface CallEndView {
  /** The gRPC status code name: "OK", "CANCELLED", ... */
  readonly status: string;
  readonly details: string;
  readonly cancelled: boolean;
  /** From the start of the call until its stream closed. */
  readonly durationMs: number;
  /** From the start of the call until its first event, if any came. */
  readonly firstEventMs?: number;
  /** A protocol problem the inspector noticed, e.g. no terminal event. */
  readonly problem?: string;
}

/** One Invoke in the history. */
export interface CallView {
  readonly id: string;
  readonly tool: string;
  readonly args: Json;
  readonly workingDirectory: string;
  readonly startedAt: number;
  readonly events: readonly CallEventView[];
  readonly end?: CallEndView;
}

/** A subscription mode, as agent.hcl's hook{} block names it. */
export type HookModeView = "observe" | "transform" | "veto";

/**
 * A hook point the Hooks panel can fire: all eight are listed once the provider advertises one, so
 * a point it does not advertise can be fired too and its refusal seen.
 */
export interface HookPointView {
  /** The agent.hcl name: "plan-ready". */
  readonly name: string;
  /** In GetSchema's supported_hook_points. */
  readonly advertised: boolean;
  /** The point's payload message: "PlanReadyPayload". */
  readonly payloadType: string;
  /** The payload fields a transform may change at this point (none at most). */
  readonly mutable: readonly string[];
  /** The sample payload `harness-tool check` fires, as protobuf JSON of `payloadType`. */
  readonly sample: Json;
}

/** A KernelCallbackService.Log line a hook handler wrote. */
export interface HookLogView {
  /** "info", "warn", ... */
  readonly level: string;
  readonly logger: string;
  readonly message: string;
  readonly fields: { readonly [key: string]: Json };
}

/** What a hook call answered, as the runtime built it (DispatchHookResponse's outcome). */
export type HookOutcomeView =
  | { readonly outcome: "observe" }
  /** "allow", "deny", or what else it decided (which the kernel rejects). */
  | { readonly outcome: "veto"; readonly decision: string }
  /** The payload returned, as protobuf JSON of the point's message; `unchanged` when it equals the one sent (identity). */
  | { readonly outcome: "transform"; readonly payload: Json; readonly unchanged: boolean }
  | { readonly outcome: "none" };

/** How a hook call ended: an answer, or the gRPC failure with its HookError. */
export type HookAnswerView =
  | ({
      readonly ok: true;
      /** The DispatchHookResponse as protobuf JSON. */
      readonly response: Json;
      /** The response rules the answer breaks: what the kernel rejects as INVALID_RESPONSE (none for a good answer). */
      readonly problems: readonly string[];
      /** When there are problems: what the kernel then does, by mode. */
      readonly kernel?: string;
    } & HookOutcomeView)
  | {
      readonly ok: false;
      /** The gRPC status code name: "INVALID_ARGUMENT", "INTERNAL", "CANCELLED", ... */
      readonly status: string;
      /** The HookError's category ("INVALID_RESPONSE", "VETO_FAILED", ...) when the status carried one. */
      readonly category?: string;
      readonly message: string;
      /** A point or mode the provider does not subscribe to: refused with INVALID_RESPONSE. */
      readonly refused: boolean;
      readonly cancelled: boolean;
      /** The failure as `harness-tool hook` prints it, with what the kernel does. */
      readonly line: string;
    };

/** One DispatchHook the page fired, in the history beside the tool calls. */
export interface HookCallView {
  readonly id: string;
  readonly point: string;
  readonly mode: HookModeView;
  /** The payload sent, as protobuf JSON of the point's message. */
  readonly payload: Json;
  readonly subscriptionId?: string;
  readonly timeoutMs: number;
  /** Whether the provider advertised the point when it was fired. */
  readonly advertised: boolean;
  readonly startedAt: number;
  /** The Log lines the handler wrote through the kernel, as they arrive (some after the answer). */
  readonly logs: readonly HookLogView[];
  readonly answer?: HookAnswerView;
  readonly durationMs?: number;
}

/** Everything the page needs to draw itself, sent once on load and after reconnecting. */
export interface InspectorSnapshot {
  readonly identity: IdentityView;
  readonly tools: readonly ToolView[];
  readonly configAttributes: readonly ConfigAttributeView[];
  readonly configState: ConfigStateView;
  readonly calls: readonly CallView[];
  /** Every point, when the provider advertises at least one hook point; empty otherwise (no Hooks panel). */
  readonly hookPoints: readonly HookPointView[];
  /** The hook calls fired from the page. */
  readonly hooks: readonly HookCallView[];
  readonly logs: readonly LogLineView[];
  readonly callbacks: readonly CallbackView[];
  readonly replies: CannedRepliesView;
  /** The working directory calls get by default (the inspector's --cwd). */
  readonly workingDirectory: string;
}

/** A RenderTree as protobuf JSON (RenderNode's oneof cases as keys: text, codeBlock, diff, ...). */
export type RenderTreeJson = { readonly root?: Json };

/** The answer of Preview and Render. */
export type TreeAnswer =
  | { readonly ok: true; readonly tree: RenderTreeJson; readonly durationMs: number }
  | {
      readonly ok: false;
      readonly status: string;
      readonly message: string;
      readonly category?: string;
      readonly details?: Json;
    };

/** The answer of Configure. */
export type ConfigureAnswer =
  | { readonly ok: true; readonly state: ConfigStateView }
  | { readonly ok: false; readonly state: ConfigStateView };

/** An event on the stream (`/events`), one per SSE message, its name in `kind`. */
export type StreamMessage =
  | { readonly kind: "snapshot"; readonly snapshot: InspectorSnapshot }
  | { readonly kind: "call-start"; readonly call: CallView }
  | { readonly kind: "call-event"; readonly id: string; readonly event: CallEventView }
  | { readonly kind: "call-end"; readonly id: string; readonly end: CallEndView }
  /** A hook call as it now stands: when fired, for each Log line, and answered. */
  | { readonly kind: "hook"; readonly hook: HookCallView }
  | { readonly kind: "log"; readonly line: LogLineView }
  | { readonly kind: "callback"; readonly callback: CallbackView }
  | { readonly kind: "config"; readonly state: ConfigStateView }
  | { readonly kind: "replies"; readonly replies: CannedRepliesView }
  | { readonly kind: "tool"; readonly tool: ToolView }
  | { readonly kind: "identity"; readonly identity: IdentityView };

/** A request body of POST /api/invoke. */
export interface InvokeRequestBody {
  readonly tool: string;
  readonly args: Json;
  readonly workingDirectory?: string;
}

/** A request body of POST /api/hook: `payload` is protobuf JSON of the point's message. */
export interface HookRequestBody {
  readonly point: string;
  readonly mode: string;
  readonly payload: Json;
  readonly subscriptionId?: string;
  /** The call's deadline (the kernel's default_hook_timeout_ms); default 10000. */
  readonly timeoutMs?: number;
}

/**
 * A request body of POST /api/configure: `keep` names sensitive attributes (dotted through object
 * attributes, e.g. "upstream.token") whose current value stays, so the page never holds it.
 */
export interface ConfigureRequestBody {
  readonly config: { readonly [key: string]: Json };
  readonly keep?: readonly string[];
}
