// examples/guard: its rules on the kernel's payload messages, then the example itself launched as the
// kernel launches it (go-plugin handshake, Configure) and fired at as the kernel fires hooks:
// the plan-ready veto keeps plans inside the configured root, the post-tool-call observer writes an
// audit line through the kernel's Log, the pre-model-call transform redacts the configured
// patterns and leaves `model` as sent; `harness-tool hook` on its folder shows the audit line; and
// `harness-tool check` passes it, every hook rule included.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { create, toJson, type MessageInitShape } from "@bufbuild/protobuf";
import { Role, MessageSchema } from "../../generated/pluggableharness/content/v1/content_pb.js";
import { HookDecision, type PreModelCallPayload } from "../../generated/pluggableharness/hook/v1/hook_pb.js";
import { PlanSchema } from "../../generated/pluggableharness/plan/v1/plan_pb.js";
import { ToolErrorCategory } from "../../generated/pluggableharness/tool/v1/tool_pb.js";
import { runConformance } from "../../cli/check/run-conformance.js";
import { renderReport } from "../../cli/check/conformance-report.js";
import {
  auditFields,
  isInside,
  pathsOutsideRoot,
  redactedMarker,
  redactMessages,
} from "../../examples/guard/src/guard-rules.js";
import { launch, type LaunchedProvider } from "../../runtime/testing/index.js";
import { writeProviderScript } from "../support/provider-script.js";
import { cli } from "../cli/support/run-cli.js";
import { repoRoot } from "../support/buf.js";

const guardFolder = path.join(repoRoot, "examples/guard");

const plan = (...inputs: Record<string, unknown>[]) =>
  create(PlanSchema, {
    turnId: "1",
    items: inputs.map((input, i) => ({ id: `item-${i + 1}`, toolName: "write_file", input: input as never })),
  });
const text = (role: Role, value: string): MessageInitShape<typeof MessageSchema> => ({
  role,
  content: [{ block: { case: "text", value: { text: value } } }],
});

describe("examples/guard: its rules", () => {
  it("judges paths lexically against the root: relative ones resolve inside it, .. and ~ may leave it", () => {
    assert.equal(isInside("/work/project", "src/a.ts"), true);
    assert.equal(isInside("/work/project", "/work/project"), true);
    assert.equal(isInside("/work/project", "/work/project/../other/a.ts"), false);
    assert.equal(isInside("/work/project", "../project-evil/a.ts"), false);
    assert.equal(isInside("/work/project", "~/.ssh/id_rsa"), false);
    assert.equal(isInside("/work/project", "/etc/passwd"), false);
  });

  it("finds every path argument outside the root, at any depth and in lists, and only path arguments", () => {
    const outside = pathsOutsideRoot(
      plan(
        { path: "src/a.ts", content: "/etc/passwd is just text here" },
        { files: ["ok.txt", "/etc/hosts"] },
        { options: { cwd: "/tmp" } },
      ),
      "/work/project",
    );
    assert.deepEqual(outside, [
      { item: "item-2", tool: "write_file", argument: "files", path: "/etc/hosts" },
      { item: "item-3", tool: "write_file", argument: "cwd", path: "/tmp" },
    ]);
  });

  it("redacts text, tool results and earlier tool arguments, counting the matches, and leaves the input unchanged", () => {
    const messages = [
      create(MessageSchema, text(Role.USER, "my key is sk-abcdefghijklmnopqrstu and sk-zzzzzzzzzzzzzzzzzzzz")),
      create(MessageSchema, {
        role: Role.ASSISTANT,
        content: [
          {
            block: {
              case: "toolUse",
              value: { id: "t1", name: "bash", arguments: { command: "curl -H 'sk-abcdefghijklmnopqrstu'" } },
            },
          },
          {
            block: {
              case: "toolResult",
              value: {
                toolUseId: "t1",
                content: [{ block: { case: "text", value: { text: "echoed sk-abcdefghijklmnopqrstu" } } }],
              },
            },
          },
          { block: { case: "thinking", value: { text: "sk-abcdefghijklmnopqrstu", signature: new Uint8Array([1]) } } },
        ],
      }),
    ];
    const { messages: redacted, count } = redactMessages(messages, [/sk-[a-z]{20,}/]);
    assert.equal(count, 4);
    const first = redacted[0]?.content[0]?.block;
    assert.equal(first?.case === "text" && first.value.text, `my key is ${redactedMarker} and ${redactedMarker}`);
    const [use, result, thinking] = redacted[1]?.content.map((c) => c.block) ?? [];
    assert.deepEqual(use?.case === "toolUse" && use.value.arguments, { command: `curl -H '${redactedMarker}'` });
    const inner = result?.case === "toolResult" ? result.value.content[0]?.block : undefined;
    assert.equal(inner?.case === "text" && inner.value.text, `echoed ${redactedMarker}`);
    assert.equal(
      thinking?.case === "thinking" && thinking.value.text,
      "sk-abcdefghijklmnopqrstu",
      "a thinking block is signed: left alone",
    );
    const original = messages[0]?.content[0]?.block;
    assert.equal(
      original?.case === "text" && original.value.text.includes("sk-abcdefghijklmnopqrstu"),
      true,
      "the input is not modified",
    );
  });

  it("names the call, the tool and how it ended in the audit line", () => {
    const call = { id: "c1", toolName: "bash", callContext: { sessionId: "s1", turnId: "3" } };
    assert.deepEqual(
      auditFields({
        call,
        outcome: { case: "error", value: { category: ToolErrorCategory.TIMEOUT, message: "late" } },
      } as never),
      {
        tool: "bash",
        call_id: "c1",
        session_id: "s1",
        turn_id: "3",
        outcome: "error",
        category: "timeout",
      },
    );
  });
});

describe("examples/guard, launched as the kernel launches it", () => {
  let dir = "";
  let root = "";
  let guard: LaunchedProvider;
  const config = () => ({ root, redact_patterns: ["sk-[A-Za-z0-9]{20,}"] });
  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "harness-tool-guard-"));
    root = path.join(dir, "project");
    guard = await launch(writeProviderScript(dir, "guard", "examples/guard/src/main.ts"));
    await guard.configure(config());
  });
  after(async () => {
    assert.ok((await guard.kill()).graceful);
    rmSync(dir, { recursive: true, force: true });
  });

  it("advertises the three points it subscribes to", async () => {
    const schema = await guard.getSchema();
    assert.deepEqual(
      schema.supportedHookPoints.map((p) => p),
      [2, 5, 6],
      "pre-model-call, plan-ready, post-tool-call",
    );
    assert.deepEqual(
      schema.tools.map((t) => t.name),
      ["check_path"],
    );
  });

  it("plan-ready veto: allows a plan inside the root, denies one that reaches outside", async () => {
    const verdict = async (...inputs: Record<string, unknown>[]) => {
      const { outcome } = await guard.dispatchHook("plan-ready", "veto", { plan: plan(...inputs) });
      return outcome.case === "veto" ? outcome.value.decision : undefined;
    };
    assert.equal(await verdict({ path: "src/a.ts" }, { path: path.join(root, "b.ts") }), HookDecision.ALLOW);
    assert.equal(await verdict({ path: "src/a.ts" }, { path: "../elsewhere/b.ts" }), HookDecision.DENY);
    const warning = await guard.kernel.waitFor("log", (r) => r.entry?.message.startsWith("plan denied") === true);
    assert.deepEqual(warning.entry?.fields?.["outside"], ["write_file path=../elsewhere/b.ts"]);
  });

  it("post-tool-call observe: one audit line through the kernel's Log", async () => {
    const { outcome } = await guard.dispatchHook("post-tool-call", "observe", {
      call: { id: "c7", toolName: "write_file", callContext: { sessionId: "s1", turnId: "2" } },
      outcome: { case: "result", value: { payload: { bytes_written: 3 } } },
    });
    assert.equal(outcome.case, "observe");
    const line = await guard.kernel.waitFor(
      "log",
      (r) => r.entry?.message === "audit: tool call finished" && r.entry.fields?.["call_id"] === "c7",
    );
    assert.deepEqual(line.entry?.fields, {
      tool: "write_file",
      call_id: "c7",
      session_id: "s1",
      turn_id: "2",
      outcome: "result",
    });
  });

  it("pre-model-call transform: the secret is gone from the messages, the model is as sent", async () => {
    const { outcome } = await guard.dispatchHook("pre-model-call", "transform", {
      messages: [text(Role.USER, "deploy with sk-ABCDEFGHIJKLMNOPQRSTUVWX please")],
      model: { provider: "anthropic", id: "claude" },
    });
    const returned = outcome.case === "transform" ? outcome.value.payload?.payload : undefined;
    assert.equal(returned?.case, "preModelCall");
    const payload = returned?.value as PreModelCallPayload;
    const block = payload.messages[0]?.content[0]?.block;
    assert.equal(block?.case === "text" && block.value.text, `deploy with ${redactedMarker} please`);
    assert.deepEqual(
      { provider: payload.model?.provider, id: payload.model?.id },
      { provider: "anthropic", id: "claude" },
    );
  });

  it("harness-tool hook on the example's folder: the audit line on stderr, a deny for a plan outside the root", async () => {
    const configFile = path.join(dir, "guard-config.json");
    writeFileSync(configFile, JSON.stringify(config()));
    const payload = (name: string, value: unknown) => {
      writeFileSync(path.join(dir, name), JSON.stringify(value));
      return path.join(dir, name);
    };
    const audit = await cli([
      "hook",
      guardFolder,
      "post-tool-call",
      "--mode",
      "observe",
      "--config",
      configFile,
      "--payload",
      payload("call.json", {
        call: { id: "c9", toolName: "bash" },
        error: { category: "TOOL_ERROR_CATEGORY_TIMEOUT", message: "late" },
      }),
    ]);
    assert.equal(audit.code, 0, audit.err);
    assert.equal(audit.out, "observe: acknowledged\n");
    assert.match(
      audit.err,
      /^kernel log \[info\]: audit: tool call finished \{"tool":"bash","call_id":"c9",.*"outcome":"error","category":"timeout"\}\n$/,
    );
    const veto = await cli([
      "hook",
      guardFolder,
      "plan-ready",
      "--mode",
      "veto",
      "--config",
      configFile,
      "--payload",
      payload("plan.json", { plan: toJson(PlanSchema, plan({ path: "/etc/passwd" })) }),
    ]);
    assert.equal(veto.out, "veto: deny\n", veto.err);
  });

  it("passes harness-tool check, every hook rule included", async () => {
    const results = await runConformance(
      { command: writeProviderScript(dir, "guard-check", "examples/guard/src/main.ts"), args: [] },
      { config: config(), cwd: root },
    );
    const report = renderReport(results, 400);
    assert.deepEqual(
      results.filter((r) => r.status === "fail").map((r) => r.rule),
      [],
      report,
    );
    assert.deepEqual(
      results.filter((r) => r.rule.startsWith("hooks.")).map((r) => [r.rule, r.status]),
      [
        ["hooks.advertised", "pass"],
        ["hooks.point:pre-model-call", "pass"],
        ["hooks.point:plan-ready", "pass"],
        ["hooks.point:post-tool-call", "pass"],
        ["hooks.unadvertised-refused", "pass"],
        ["hooks.malformed-refused", "pass"],
      ],
      report,
    );
  });
});
