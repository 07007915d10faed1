/**
 * Interactive tools on the frontend protocol's path. A `kind: interactive` call is answered by a
 * person through the kernel's frontend: the kernel shows a prompt (`InteractiveRequest.prompt`, a
 * RenderTree) and the person's `InteractiveResponse.response` becomes the call's
 * `ToolResult.payload`, which the kernel validates strictly against the tool's output schema.
 * Invoke is a server stream with no way in for an answer, and the kernel callbacks have no rpc
 * that asks a person, so the provider's part is the prompt, served as the tool's Preview (a
 * RenderTree from the call's arguments, side-effect-free whatever the tool's kind).
 *
 * `interactiveTool(tool, { prompt })` gives the tool's handlers from that one declaration:
 * - `prompt`: the Preview handler (the tool must declare `preview: true`, or this does not compile);
 * - `answer(response)`: a person's response checked against the output schema, as the kernel
 *   checks it: the typed result, or an `unknown` ToolError listing what does not conform;
 * - `invoke`: the development fallback only: the same prompt as text on the terminal the provider
 *   was started from (`/dev/tty`, which `harness-tool invoke` shares), a line read back through
 *   `fromLine` and `answer` (asked again while it does not conform). A provider the kernel launches
 *   has no terminal: the call then fails with an `execution_failed` ToolError that says so.
 */
import { closeSync, openSync } from "node:fs";
import { createInterface } from "node:readline/promises";
import type { Readable, Writable } from "node:stream";
import { ReadStream, WriteStream } from "node:tty";
import { create } from "@bufbuild/protobuf";
import { type RenderNode, RenderTreeSchema } from "../generated/pluggableharness/render/v1/render_pb.js";
import { boundedMessage, reportViolations } from "../errors/input-error-bounds.js";
import { ToolError } from "../errors/tool-error.js";
import type { JsonSchemaObject } from "../schema/json-schema.js";
import { validatorFor } from "../schema/validate-value.js";
import type { ToolDefinition } from "./define-tool.js";
import type { PreviewContext, RenderTreeInit, ToolContext } from "./tool-context.js";

/** Where the development fallback asks: a terminal's input and output. */
export interface InteractiveTerminal {
  readonly input: Readable;
  readonly output: Writable;
}

/** What an interactive tool declares beyond its spec. */
export interface InteractiveSpec<Input, Config> {
  /** The prompt the frontend shows for a call (InteractiveRequest.prompt), served as the tool's Preview. */
  prompt(input: Input, context: PreviewContext<Config>): RenderTreeInit | Promise<RenderTreeInit>;
  /**
   * Development fallback: a line typed on the terminal as a response, before `answer` checks it.
   * Default: an output with one required string property takes the line as it; any other output
   * reads the line as JSON.
   */
  fromLine?(line: string, input: Input): unknown;
  /** Development fallback: the terminal to ask on. Default: `/dev/tty`, the provider's controlling terminal. */
  terminal?(): InteractiveTerminal;
}

/** The handlers of an interactive tool, from `interactiveTool`. */
export interface InteractiveTool<Input, Output, Config> {
  /** The Preview handler: the prompt as the frontend shows it. Put it under the tool's preview method. */
  readonly prompt: (input: Input, context: PreviewContext<Config>) => Promise<RenderTreeInit>;
  /** The Invoke handler: the development fallback, asking on the terminal. */
  readonly invoke: (input: Input, context: ToolContext<Config>) => Promise<Output>;
  /** A person's response (InteractiveResponse.response) as the result, or an `unknown` ToolError listing the violations. */
  readonly answer: (response: unknown) => Output;
}

/** An interactive tool that serves its prompt as Preview (`preview: true` in its option or spec). */
export type InteractiveToolDefinition<Input, Output> = ToolDefinition<
  Input,
  Output,
  "interactive",
  boolean,
  boolean,
  true
>;

/** The handlers of an interactive tool: its prompt, the validation of an answer and the development fallback. */
export function interactiveTool<Input, Output, Config = unknown>(
  tool: InteractiveToolDefinition<Input, Output>,
  spec: InteractiveSpec<Input, Config>,
): InteractiveTool<Input, Output, Config> {
  const { declaration } = tool;
  if (declaration.kind !== "interactive" || !declaration.preview) {
    throw new TypeError(
      `${declaration.name}: interactiveTool needs an interactive tool that declares preview (its prompt is its Preview)`,
    );
  }
  const validate = tool.validators?.output ?? validatorFor(declaration.outputSchema);
  const answer = (response: unknown): Output => {
    const violations = validate(response);
    if (violations.length === 0) return response as Output;
    // A person's answer is input: the error built from it is bounded, however large the answer.
    const report = reportViolations(violations);
    throw new ToolError(
      "unknown",
      boundedMessage(`${declaration.name}: the answer does not match the output schema: ${report.summary}`),
      { details: report.details },
    );
  };
  const prompt = async (input: Input, context: PreviewContext<Config>) => spec.prompt(input, context);
  const fromLine = spec.fromLine ?? lineReader(declaration.outputSchema);
  const invoke = async (input: Input, context: ToolContext<Config>): Promise<Output> => {
    const { signal, call, config, resolvePath } = context;
    const tree = await spec.prompt(input, Object.freeze({ signal, call, config, resolvePath }));
    const terminal = (spec.terminal ?? openTerminal)();
    context.log.info("asking on the terminal (the development fallback of an interactive tool)", {
      tool: declaration.name,
    });
    return askOnTerminal(terminal, renderTreeText(tree), signal, (line) => {
      try {
        return { output: answer(fromLine(line, input)) };
      } catch (error) {
        return { problem: (error as Error).message };
      }
    });
  };
  return { prompt, invoke, answer };
}

/** The default `fromLine`: the line as the one required string property, or as JSON. */
function lineReader(schema: JsonSchemaObject): (line: string) => unknown {
  const required = schema.required ?? [];
  const only = required.length === 1 ? required[0] : undefined;
  if (only !== undefined && schema.properties[only]?.type === "string") {
    return (line) => ({ [only]: line });
  }
  return (line) => {
    try {
      return JSON.parse(line) as unknown;
    } catch {
      throw new Error(
        `type the answer as JSON (e.g. ${JSON.stringify(Object.fromEntries(Object.keys(schema.properties).map((k) => [k, "…"])))})`,
      );
    }
  };
}

/** The provider's controlling terminal, or the ToolError that says there is none. */
function openTerminal(): InteractiveTerminal {
  let input: number | undefined;
  try {
    input = openSync("/dev/tty", "r");
    return { input: new ReadStream(input), output: new WriteStream(openSync("/dev/tty", "w")) };
  } catch {
    if (input !== undefined) closeSync(input);
    throw new ToolError(
      "execution_failed",
      "no terminal to ask on: under the kernel a person answers an interactive call through its frontend, " +
        "from the prompt the tool's Preview gives (Invoke asking on a terminal is the development fallback)",
    );
  }
}

/** Writes the prompt, reads lines until one is an answer (or the call is cancelled, or the terminal closes). */
async function askOnTerminal<Output>(
  terminal: InteractiveTerminal,
  prompt: string,
  signal: AbortSignal,
  read: (line: string) => { output: Output } | { problem: string },
): Promise<Output> {
  const lines = createInterface({ input: terminal.input, output: terminal.output, terminal: false });
  const closed = new Promise<never>((_, reject) =>
    lines.once("close", () =>
      reject(new ToolError("execution_failed", "the terminal closed before an answer was typed")),
    ),
  );
  closed.catch(() => {});
  try {
    let question = `\n${prompt}\n> `;
    for (;;) {
      const line = await Promise.race([lines.question(question, { signal }), closed]);
      const outcome = read(line);
      if ("output" in outcome) return outcome.output;
      question = `${outcome.problem}\n> `;
    }
  } finally {
    lines.close();
    if (terminal.input instanceof ReadStream) terminal.input.destroy();
    if (terminal.output instanceof WriteStream) terminal.output.destroy();
  }
}

/** A RenderTree as plain text, for a terminal: text runs, code, lists, tables, links, action labels. */
export function renderTreeText(init: RenderTreeInit): string {
  const tree = create(RenderTreeSchema, init);
  return tree.root ? nodeLines(tree.root, "").join("\n") : "";
}

/** The lines of one node, each under `indent`. */
function nodeLines(node: RenderNode, indent: string): string[] {
  const n = node.node;
  switch (n.case) {
    case "text":
    case "codeBlock":
      return n.value.content.split("\n").map((line) => indent + line);
    case "link":
      return [`${indent}${n.value.text} <${n.value.url}>`];
    case "list":
      return n.value.items.flatMap((item, i) => {
        const [first = "", ...rest] = nodeLines(item, "");
        const mark = n.value.ordered ? `${i + 1}. ` : "- ";
        return [indent + mark + first, ...rest.map((line) => indent + " ".repeat(mark.length) + line)];
      });
    case "group":
      return n.value.children.flatMap((child) => nodeLines(child, indent));
    case "collapsible":
      return [indent + n.value.summary, ...n.value.children.flatMap((child) => nodeLines(child, `${indent}  `))];
    case "table":
      return [n.value.headers, ...n.value.rows.map((row) => row.cells)].map((cells) => indent + cells.join(" | "));
    case "diff":
      return n.value.hunks.flatMap((hunk) =>
        hunk.lines.map((line) => `${indent}${"? +-"[line.op] ?? " "}${line.text}`),
      );
    case "action":
      return [`${indent}[${n.value.label}]`];
    case "subSession":
      return [indent + n.value.summary];
    default:
      return [];
  }
}
