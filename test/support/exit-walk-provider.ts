// The provider of the exit walk (test/runtime/service/exit-walk.test.ts in-process, and
// test/runtime/transport/exit-walk-wire.test.ts through go-plugin): every field, message, log line and
// error it produces carries one secret in each form the redactor supports, so that whatever exit
// forgets to redact shows the secret.
import assert from "node:assert/strict";
import { toBinary, type DescMessage, type MessageShape } from "@bufbuild/protobuf";
import { EventKind } from "../../generated/pluggableharness/kernel/v1/kernel_pb.js";
import { defineConfig, defineProvider, defineTool, ToolError, type RenderTreeInit } from "../../runtime/index.js";
import { maxOutputChunkBytes } from "../../runtime/service/calls/index.js";
import { redactionMarker } from "../../runtime/redaction/index.js";

/** The configured secret: a quote, a slash, a backslash, a space, an ampersand and a non-ASCII letter make its forms differ. */
export const secret = 'sk-"live"/é\\ 42&x';

/** The forms the redactor supports (docs/runtime.md#exits): raw, JSON-escaped, JSON-escaped twice, URL-encoded. */
export function formsOf(value: string): Array<{ readonly form: string; readonly text: string }> {
  const json = JSON.stringify(value).slice(1, -1);
  return [
    { form: "raw", text: value },
    { form: "JSON-escaped", text: json },
    { form: "JSON-escaped twice", text: JSON.stringify(json).slice(1, -1) },
    { form: "URL-encoded", text: encodeURIComponent(value) },
  ];
}

/** Text carrying the secret in every form. */
export const carrier = formsOf(secret)
  .map(({ form, text }) => `${form}[${text}]`)
  .join(" ");

/** Where the secret starts inside `carrier`, in bytes ("raw[" comes first). */
const secretOffset = Buffer.byteLength("raw[");

const text = { type: "object", properties: { mode: { type: "string" } }, required: ["mode"] } as const;

const walk = defineTool<{ mode: string }, { text: string }>()({
  name: "walk",
  kind: "resource",
  risk: "high",
  description: "Sends the secret through every event, callback, log line and error it can.",
  inputSchema: text,
  outputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  concurrency: { safe: true },
  idempotent: false,
  processBacked: true,
  preview: true,
  defaultTimeoutMs: 20_000,
});

const config = defineConfig<{ api_key: string }>([
  { name: "api_key", type: "string", sensitive: true, required: true },
]);

/** A RenderTree with the secret in every kind of text it has. */
export function treeCarrying(value: string): RenderTreeInit {
  return {
    root: {
      node: {
        case: "group",
        value: {
          children: [
            { node: { case: "text", value: { content: value } } },
            { node: { case: "codeBlock", value: { language: value, content: value } } },
            { node: { case: "link", value: { text: value, url: `https://api.example/?key=${value}` } } },
            { node: { case: "table", value: { headers: [value], rows: [{ cells: [value, value] }] } } },
            {
              node: {
                case: "action",
                value: {
                  id: value,
                  label: value,
                  toolName: value,
                  args: { [value]: value, list: [value] },
                  provider: value,
                },
              },
            },
          ],
        },
      },
    },
  };
}

/** What the walk does besides its events when it runs in a served process (console, stray stdout, raw stderr, an unhandled rejection). */
export interface WalkOptions {
  readonly processLevel: boolean;
}

/** The walking provider. */
export function exitWalkProvider(options: WalkOptions) {
  return defineProvider(
    {
      name: "exit-walk",
      version: "1",
      source: "github.com/harness-tool/exit-walk",
      tools: { walk },
      config,
      renderers: {
        v1: async () => treeCarrying(carrier),
        broken: async () => {
          throw new ToolError("execution_failed", carrier, { details: { [carrier]: [carrier] } });
        },
      },
    },
    {
      walk: async ({ mode }, ctx) => {
        await ctx.progress(carrier, 0.5);
        await ctx.partialResult({ [carrier]: carrier, list: [carrier, { deep: carrier }] });
        // One secret straddles the 64 KiB chunk boundary; another is split across two writes.
        await ctx.output(
          "stdout",
          Buffer.concat([Buffer.alloc(maxOutputChunkBytes - secretOffset - 2, "a"), Buffer.from(`${carrier}\n`)]),
        );
        const bytes = Buffer.from(`${carrier}\n`);
        await ctx.output("stderr", bytes.subarray(0, secretOffset + 3));
        await ctx.output("stderr", bytes.subarray(secretOffset + 3));
        ctx.log.warn(carrier, { [carrier]: carrier });
        const attempt = async (call: () => Promise<unknown>) => {
          try {
            await call();
          } catch (error) {
            // A refusing kernel must not end the walk; the refusal is logged, through the exits too.
            ctx.log.error(`callback failed: ${String(error)} ${carrier}`);
          }
        };
        await attempt(() => ctx.kernel.log("info", carrier, { [carrier]: carrier, list: [carrier] }));
        await attempt(() =>
          ctx.kernel.emit(EventKind.TOOL_RESULT, Buffer.from(JSON.stringify({ value: carrier })), carrier),
        );
        // parent_session_id is the call's session, bound by the runtime: the carrier rides in the rest.
        await attempt(() => ctx.kernel.runSession({ profile: carrier, prompt: carrier }));
        await attempt(() =>
          ctx.kernel.countTokens([{ block: { case: "text", value: { text: carrier } } }], {
            provider: carrier,
            id: carrier,
          }),
        );
        if (options.processLevel) {
          console.log(carrier);
          console.error(new Error(carrier));
          process.stdout.write(`${carrier}\n`);
          process.stderr.write(`${carrier}\n`);
          void Promise.reject(new Error(carrier, { cause: { why: carrier } }));
        }
        ctx.exitStatus(1, carrier);
        switch (mode) {
          case "tool-error":
            throw new ToolError("execution_failed", carrier, { details: { [carrier]: [carrier, { deep: carrier }] } });
          case "error":
            throw new Error(carrier, { cause: { why: carrier } });
          case "thrown":
            throw { token: carrier };
          case "bad-output":
            return { text: 5, [carrier]: carrier } as unknown as { text: string };
          default:
            return { text: carrier };
        }
      },
    },
    {
      walk: async ({ mode }) => {
        if (mode === "preview-error")
          throw new ToolError("invalid_arguments", carrier, { details: { [carrier]: carrier } });
        return treeCarrying(carrier);
      },
    },
  );
}

/** The ways the walk ends an Invoke. */
export const invokeModes = ["result", "tool-error", "error", "thrown", "bad-output"] as const;

/** One thing that left the provider: where, and its bytes or text. */
export interface Sent {
  readonly exit: string;
  readonly what: string;
  readonly data: Uint8Array | string;
}

/** A message as the bytes that go on the wire. */
export function wire<Desc extends DescMessage>(
  exit: string,
  what: string,
  schema: Desc,
  message: MessageShape<Desc>,
): Sent {
  return { exit, what, data: toBinary(schema, message) };
}

/**
 * The walk's `failure(what, run)`: runs a call that must be refused and returns what its refusal
 * sent, as `sent` reads it from the error (each side has its own view of a unary failure).
 */
export function failureSent(
  sent: (what: string, error: unknown) => Sent[] | Promise<Sent[]>,
): (what: string, run: () => Promise<unknown>) => Promise<Sent[]> {
  return async (what, run) => {
    const error = await run().then(
      () => assert.fail(`${what} succeeded`),
      (e: unknown) => e,
    );
    return sent(what, error);
  };
}

/** Every form of the secret found in what was sent, as readable lines (empty: nothing leaked). */
export function leaks(sent: readonly Sent[]): string[] {
  const found: string[] = [];
  for (const { exit, what, data } of sent) {
    const bytes =
      typeof data === "string" ? Buffer.from(data, "utf8") : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    for (const { form, text } of formsOf(secret)) {
      const at = bytes.indexOf(Buffer.from(text, "utf8"));
      if (at !== -1)
        found.push(
          `${exit} (${what}): the secret ${form} at byte ${at}: …${bytes.subarray(Math.max(0, at - 20), at + 40).toString("utf8")}…`,
        );
    }
  }
  return found;
}

/** The exits whose output shows the redaction marker: a walk that reached none of them proved nothing. */
export function exitsShowingMarker(sent: readonly Sent[]): Set<string> {
  const marker = Buffer.from(redactionMarker);
  return new Set(
    sent
      .filter((s) => Buffer.from(typeof s.data === "string" ? Buffer.from(s.data) : s.data).includes(marker))
      .map((s) => s.exit),
  );
}
