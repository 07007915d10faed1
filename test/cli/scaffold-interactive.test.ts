// The scaffold's interactive example (cli/templates/example-tools/interactive) on the kernel's
// interactive path: ask_user declares preview, its Preview is the prompt (a RenderTree, the type of
// InteractiveRequest.prompt), the scaffold's own `askUser.answer` checks a person's answer against
// the output schema, and its Invoke, the terminal fallback, fails plainly in a provider with no
// controlling terminal (setsid, as under a kernel run by a service manager). The scaffold's files as
// init writes them, generated with this checkout's plugin and launched through harness-tool/testing's
// go-plugin host with this checkout's runtime; init-e2e answers the fallback on a pseudo-terminal.
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { after, before, describe, it } from "node:test";
import { RiskClass, ToolErrorCategory, ToolKind } from "harness-tool/generated/pluggableharness/tool/v1/tool_pb.js";
import { launch, type LaunchedProvider } from "harness-tool/testing";
import { scaffoldRepository } from "./support/scaffold-repository.js";
import { typeScriptProvider } from "../runtime/interop/providers.js";

/** What the scaffold's handlers module exports for the interactive example. */
interface ScaffoldHandlers {
  askUser: { answer(response: unknown): unknown };
}

describe("the scaffold's ask_user: the prompt as Preview, the answer checked, the terminal only a fallback", () => {
  let dir = "";
  let provider: LaunchedProvider;
  const callContext = { sessionId: "s-ask", turnId: "1", workingDirectory: "." };
  before(async () => {
    dir = scaffoldRepository("notes", "github.com/acme/provider-notes", ["interactive"]);
    const entry = typeScriptProvider("scaffold", path.join(dir, "src/main.ts"));
    // A session of its own: no controlling terminal, whoever runs the tests.
    provider = await launch("/usr/bin/setsid", {
      args: [entry.command, ...entry.args],
      cwd: dir,
      handshakeTimeoutMs: 30_000,
    });
    await provider.configure({ roots: ["."] });
  });
  after(async () => {
    await provider?.kill();
    if (dir !== "") rmSync(dir, { recursive: true, force: true });
  });

  it("advertises ask_user as interactive and read-only, with no concurrency (the kernel runs such calls one at a time)", async () => {
    const tool = (await provider.getSchema()).tools.find((t) => t.name === "ask_user");
    assert.equal(tool?.kind, ToolKind.INTERACTIVE);
    assert.equal(tool?.risk, RiskClass.READ_ONLY);
    assert.equal(tool?.concurrency, undefined);
    // The model reads the rpc's own comment only, not the note for the author above it.
    assert.equal(tool?.description, "Asks the user a question and waits for the answer.");
  });

  it("serves the question as the prompt: Preview's RenderTree", async () => {
    const { preview } = await provider.preview({
      id: "p-1",
      toolName: "ask_user",
      arguments: { question: "Ship it?" },
      callContext,
    });
    assert.equal(preview?.root?.node.case, "text");
    assert.equal(preview?.root?.node.case === "text" && preview.root.node.value.content, "Ship it?");
  });

  it("takes a person's answer only when it matches the output schema", async () => {
    const { askUser } = (await import(pathToFileURL(path.join(dir, "src/handlers.ts")).href)) as ScaffoldHandlers;
    assert.deepEqual(askUser.answer({ answer: "yes, ship" }), { answer: "yes, ship" });
    assert.throws(() => askUser.answer({ answer: 42 }), /ask_user: the answer does not match the output schema/);
    assert.throws(() => askUser.answer({}), /does not match the output schema/);
  });

  it("Invoke with no terminal: one execution_failed error saying a person answers through the frontend", async () => {
    const { events } = await provider.invoke({
      id: "i-1",
      toolName: "ask_user",
      arguments: { question: "Ship it?" },
      callContext,
    }).done;
    assert.equal(events.length, 1, JSON.stringify(events));
    const error = events[0]?.event.case === "error" ? events[0].event.value : undefined;
    assert.equal(error?.category, ToolErrorCategory.EXECUTION_FAILED);
    assert.match(
      error?.message ?? "",
      /no terminal to ask on: .*through its frontend, from the prompt the tool's Preview gives/,
    );
  });
});
