// Interactive tools on the frontend protocol's path: the prompt is the tool's Preview, a person's
// answer is checked against the output schema before it is the result, and Invoke is the terminal
// fallback for development.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { PassThrough } from "node:stream";
import { create } from "@bufbuild/protobuf";
import { PreviewRequestSchema, ToolErrorCategory } from "../../../generated/pluggableharness/tool/v1/tool_pb.js";
import {
  defineProvider,
  defineTool,
  interactiveTool,
  isToolError,
  renderTreeText,
  type InteractiveTerminal,
} from "../../../runtime/index.js";
import { createToolService } from "../../../runtime/service/calls/index.js";
import { askUserPrompt, handlers } from "../../../examples/user/src/handlers.js";
import { askUserTool, createUserProvider } from "../../../examples/user/src/gen/examples/user/v1/user_tool.js";
import { invokeRequest, onlyTerminal, recordingSink, terminalError } from "./support/recording-sink.js";

/** A terminal the test types into, keeping what the tool wrote. */
function scriptedTerminal(): { terminal: InteractiveTerminal; written: () => string; type: (line: string) => void } {
  const input = new PassThrough();
  const output = new PassThrough();
  let text = "";
  output.on("data", (chunk: Buffer) => {
    text += chunk.toString();
  });
  return { terminal: { input, output }, written: () => text, type: (line) => input.write(`${line}\n`) };
}

/** Resolves once `written()` contains `part` (polling; the test's own timeout bounds it). */
async function until(written: () => string, part: string): Promise<void> {
  while (!written().includes(part)) await new Promise((resolve) => setTimeout(resolve, 5));
}

const confirm = defineTool({
  name: "confirm",
  kind: "interactive",
  risk: "read_only",
  description: "Asks for a decision and a reason.",
  inputSchema: { type: "object", properties: { action: { type: "string" } }, required: ["action"] },
  outputSchema: {
    type: "object",
    properties: { approved: { type: "boolean" }, reason: { type: "string" } },
    required: ["approved"],
  },
  idempotent: false,
  preview: true,
  defaultTimeoutMs: 5_000,
});

function confirmProvider(terminal: () => InteractiveTerminal) {
  const tool = interactiveTool(confirm, {
    prompt: (input) => ({ root: { node: { case: "text", value: { content: `Go ahead with ${input.action}?` } } } }),
    terminal,
  });
  return {
    tool,
    provider: defineProvider(
      { name: "p", version: "1", source: "github.com/acme/p", tools: { confirm } },
      { confirm: tool.invoke },
      { confirm: tool.prompt },
    ),
  };
}

/** A confirm call started through the service, asking on a terminal the test types into. */
async function confirmCall(action: string) {
  const typed = scriptedTerminal();
  const { provider } = confirmProvider(() => typed.terminal);
  const service = createToolService(provider, { stderr: () => {} });
  const rec = recordingSink();
  const call = service.invoke(invokeRequest("confirm", { action }), rec.sink);
  await until(typed.written, "> ");
  return { typed, rec, call };
}

describe("interactive tools", () => {
  it("serve their prompt as Preview: examples/user's question and choices as a RenderTree", async () => {
    const service = createToolService(createUserProvider(handlers), { stderr: () => {} });
    const call = invokeRequest("ask_user", { question: "Deploy now?", choices: ["yes", "no"] }).call!;
    const response = await service.preview(create(PreviewRequestSchema, { call }));
    assert.ok(response.preview);
    assert.equal(renderTreeText(response.preview), "Deploy now?\n- yes\n- no");
    const plain = askUserPrompt({ question: "Ready?" });
    assert.equal(renderTreeText(plain), "Ready?");
  });

  it("check a person's answer against the output schema: the result, or an unknown ToolError with the violations", () => {
    const { tool } = confirmProvider(() => scriptedTerminal().terminal);
    assert.deepEqual(tool.answer({ approved: true, reason: "fine" }), { approved: true, reason: "fine" });
    try {
      tool.answer({ approved: "yes" });
      assert.fail("a non-conforming answer is refused");
    } catch (error) {
      assert.ok(isToolError(error));
      assert.equal(error.category, "unknown");
      assert.match(error.message, /confirm: the answer does not match the output schema: \/approved must be a boolean/);
      assert.deepEqual(error.details, {
        violations: [{ path: "/approved", message: "must be a boolean, not a string" }],
      });
    }
  });

  it("bound the error a huge non-conforming answer makes: the first violations listed, the rest counted", () => {
    const pick = defineTool({
      ...confirmSpec(),
      outputSchema: {
        type: "object",
        properties: { picks: { type: "array", items: { type: "boolean" } } },
        required: ["picks"],
      },
      preview: true,
    });
    const tool = interactiveTool(pick, { prompt: () => ({}) });
    try {
      tool.answer({ picks: Array.from({ length: 10_000 }, (_, i) => `pick ${i}`) });
      assert.fail("a non-conforming answer is refused");
    } catch (error) {
      assert.ok(isToolError(error));
      assert.match(error.message, /; and 9,995 more$/);
      assert.equal((error.details?.["violations"] as unknown[] | undefined)?.length, 20);
      assert.equal(error.details?.["violations_omitted"], 9_980);
    }
  });

  it("ask on the terminal as the development fallback: the prompt as text, a bad line asked again, then the result", async () => {
    const { typed, rec, call } = await confirmCall("the deploy");
    assert.match(typed.written(), /Go ahead with the deploy\?\n> $/);
    typed.type("sure");
    await until(typed.written, "type the answer as JSON");
    typed.type('{"approved": "yes"}');
    await until(typed.written, "/approved must be a boolean");
    typed.type('{"approved": true}');
    await call;
    const terminal = onlyTerminal(rec);
    assert.equal(terminal.case, "result");
    assert.deepEqual(terminal.case === "result" ? terminal.value.payload : undefined, { approved: true });
  });

  it("take a typed line as the answer when the output is one required string (examples/user's ask_user)", async () => {
    const typed = scriptedTerminal();
    const ask = interactiveTool(askUserTool, { prompt: askUserPrompt, terminal: () => typed.terminal });
    const service = createToolService(createUserProvider({ askUser: ask.invoke, previewAskUser: ask.prompt }), {
      stderr: () => {},
    });
    const rec = recordingSink();
    const call = service.invoke(invokeRequest("ask_user", { question: "Name?" }), rec.sink);
    await until(typed.written, "Name?\n> ");
    typed.type("Ada");
    await call;
    const terminal = onlyTerminal(rec);
    assert.deepEqual(terminal.case === "result" ? terminal.value.payload : undefined, { answer: "Ada" });
  });

  it("end the fallback with an execution_failed ToolError when the terminal closes before an answer", async () => {
    const { typed, rec, call } = await confirmCall("x");
    (typed.terminal.input as PassThrough).end();
    await call;
    const error = terminalError(rec);
    assert.equal(error.category, ToolErrorCategory.EXECUTION_FAILED);
    assert.match(error.message, /the terminal closed before an answer was typed/);
  });

  it("stop asking when the call is cancelled: no terminal event", async () => {
    const { rec, call } = await confirmCall("x");
    rec.cancel();
    await call;
    assert.deepEqual(rec.terminals(), []);
  });

  it("need an interactive tool that declares preview, at compile time and at run time", () => {
    const noPreview = defineTool({ ...confirmSpec(), preview: false });
    assert.throws(
      // @ts-expect-error: an interactive tool's prompt is its Preview, so it must declare preview.
      () => interactiveTool(noPreview, { prompt: () => ({}) }),
      /confirm: interactiveTool needs an interactive tool that declares preview/,
    );
  });
});

function confirmSpec() {
  return {
    name: "confirm",
    kind: "interactive",
    risk: "read_only",
    description: "Asks.",
    inputSchema: { type: "object", properties: {} },
    outputSchema: { type: "object", properties: {} },
    idempotent: false,
  } as const;
}

describe("renderTreeText", () => {
  it("writes text, lists, tables, links, code, collapsibles and actions as plain lines", () => {
    const text = (content: string) => ({ node: { case: "text" as const, value: { content } } });
    const lines = renderTreeText({
      root: {
        node: {
          case: "group",
          value: {
            children: [
              text("Pick one:"),
              { node: { case: "list", value: { ordered: true, items: [text("red"), text("blue\nor teal")] } } },
              { node: { case: "table", value: { headers: ["a", "b"], rows: [{ cells: ["1", "2"] }] } } },
              { node: { case: "link", value: { text: "docs", url: "https://example.org" } } },
              { node: { case: "codeBlock", value: { content: "x = 1" } } },
              { node: { case: "collapsible", value: { summary: "more", children: [text("hidden")] } } },
              { node: { case: "action", value: { id: "a", label: "Open", toolName: "open" } } },
            ],
          },
        },
      },
    });
    assert.equal(
      lines,
      [
        "Pick one:",
        "1. red",
        "2. blue",
        "   or teal",
        "a | b",
        "1 | 2",
        "docs <https://example.org>",
        "x = 1",
        "more",
        "  hidden",
        "[Open]",
      ].join("\n"),
    );
  });
});
