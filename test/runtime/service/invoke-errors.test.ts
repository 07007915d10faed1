// Invoke: a thrown ToolError keeps its category; anything else thrown becomes unknown with the raw
// error in details; process_crashed cannot be constructed.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ToolErrorCategory } from "../../../generated/pluggableharness/tool/v1/tool_pb.js";
import { createToolService, ToolError, toolErrorCategoryNames } from "../../../runtime/index.js";
import { echo, providerWith } from "./support/sample-tools.js";
import { invokeRequest, onlyTerminal, recordingSink } from "./support/recording-sink.js";

async function terminalOf(handler: (input: any, ctx: any) => unknown) {
  const service = createToolService(providerWith(echo, handler as never), { stderr: () => {} });
  const rec = recordingSink();
  await service.invoke(invokeRequest("echo", { text: "a" }), rec.sink);
  const t = onlyTerminal(rec);
  assert.equal(t.case, "error");
  return t.value;
}

describe("Invoke errors", () => {
  for (const [i, category] of toolErrorCategoryNames.entries()) {
    it(`a thrown ToolError ${category} keeps its category, message, retryable and details`, async () => {
      const error = await terminalOf(async () => {
        throw new ToolError(category, `failed as ${category}`, { retryable: true, details: { n: i } });
      });
      const wire = ToolErrorCategory[category.toUpperCase() as keyof typeof ToolErrorCategory];
      assert.equal(error.category, wire);
      assert.equal(error.message, `failed as ${category}`);
      assert.equal(error.retryable, true);
      assert.deepEqual(error.details, { n: i });
    });
  }

  it("a thrown plain Error becomes unknown with the raw error in details", async () => {
    const error = await terminalOf(async () => {
      const e = new RangeError("disk on fire") as RangeError & { code: string };
      e.code = "EFIRE";
      throw e;
    });
    assert.equal(error.category, ToolErrorCategory.UNKNOWN);
    assert.match(error.message, /disk on fire/);
    const raw = error.details?.["error"] as { name: string; message: string; code: string; stack: string };
    assert.equal(raw.name, "RangeError");
    assert.equal(raw.message, "disk on fire");
    assert.equal(raw.code, "EFIRE");
    assert.match(raw.stack, /RangeError: disk on fire/);
  });

  it("a synchronous throw, a thrown string and a thrown object are all unknown", async () => {
    const sync = await terminalOf(() => {
      throw new Error("sync");
    });
    assert.equal(sync.category, ToolErrorCategory.UNKNOWN);
    const str = await terminalOf(async () => {
      throw "just a string";
    });
    assert.deepEqual(str.details, { error: { type: "string", value: "just a string" } });
    const obj = await terminalOf(async () => {
      throw { weird: 1n };
    });
    assert.deepEqual(obj.details, { error: { type: "object", value: { weird: "1" } } });
  });

  it("process_crashed cannot be constructed, and a forged one is not passed through", async () => {
    assert.throws(() => new ToolError("process_crashed" as never, "x"), TypeError);
    const forged = Object.assign(new Error("forged"), { name: "ToolError", category: "process_crashed" });
    const error = await terminalOf(async () => {
      throw forged;
    });
    assert.equal(error.category, ToolErrorCategory.UNKNOWN);
    assert.notEqual(error.category, ToolErrorCategory.PROCESS_CRASHED);
  });

  it("a validator that throws is a provider bug, reported as unknown", async () => {
    const provider = providerWith(echo, async (i) => i);
    const broken = {
      ...provider,
      tools: [
        {
          ...provider.tools[0]!,
          validateInput: () => {
            throw new Error("validator broke");
          },
        },
      ],
    };
    const service = createToolService(broken, { stderr: () => {} });
    const rec = recordingSink();
    await service.invoke(invokeRequest("echo", { text: "a" }), rec.sink);
    const t = onlyTerminal(rec);
    assert.equal(t.case === "error" && t.value.category, ToolErrorCategory.UNKNOWN);
  });
});
