// Invoke: an unknown tool, arguments failing input_schema, and a result failing output_schema.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ToolErrorCategory } from "../../../generated/pluggableharness/tool/v1/tool_pb.js";
import { createToolService } from "../../../runtime/service/calls/index.js";
import { echo, providerWith } from "./support/sample-tools.js";
import { invokeRequest, onlyTerminal, recordingSink } from "./support/recording-sink.js";

function run(handler: (input: any, ctx: any) => Promise<unknown>) {
  let calls = 0;
  const service = createToolService(
    providerWith(echo, async (i, c) => {
      calls++;
      return handler(i, c);
    }),
    { stderr: () => {} },
  );
  return { service, calls: () => calls };
}

describe("Invoke validation", () => {
  it("an unknown tool ends with not_found naming the known tools", async () => {
    const { service } = run(async (i) => i);
    const rec = recordingSink();
    await service.invoke(invokeRequest("nope", {}), rec.sink);
    const t = onlyTerminal(rec);
    assert.equal(t.case, "error");
    assert.equal(t.value.category, ToolErrorCategory.NOT_FOUND);
    assert.match(t.value.message, /no tool "nope"/);
    assert.deepEqual(t.value.details, { tool_name: "nope", known_tools: ["echo"] });
  });

  it("arguments failing input_schema end with invalid_arguments and the failing paths, without running the handler", async () => {
    const { service, calls } = run(async (i) => i);
    const rec = recordingSink();
    await service.invoke(invokeRequest("echo", { text: 3, extra: true }), rec.sink);
    const t = onlyTerminal(rec);
    assert.equal(t.case, "error");
    assert.equal(t.value.category, ToolErrorCategory.INVALID_ARGUMENTS);
    assert.deepEqual(
      (t.value.details?.["violations"] as { path: string }[] | undefined)?.map((v) => v.path),
      ["/text", "/extra"],
    );
    assert.equal(calls(), 0);
  });

  it("a missing required argument is reported with its path", async () => {
    const { service } = run(async (i) => i);
    const rec = recordingSink();
    await service.invoke(invokeRequest("echo", {}), rec.sink);
    const t = onlyTerminal(rec);
    assert.equal(t.case === "error" && t.value.category, ToolErrorCategory.INVALID_ARGUMENTS);
    assert.deepEqual(t.case === "error" && t.value.details, {
      violations: [{ path: "/text", message: "is required" }],
    });
  });

  it("a result failing output_schema is never sent as a result: unknown with the violations", async () => {
    const { service } = run(async () => ({ text: 42, more: "x" }));
    const rec = recordingSink();
    await service.invoke(invokeRequest("echo", { text: "a" }), rec.sink);
    const t = onlyTerminal(rec);
    assert.equal(t.case, "error");
    assert.equal(t.value.category, ToolErrorCategory.UNKNOWN);
    assert.deepEqual(
      (t.value.details?.["violations"] as { path: string }[] | undefined)?.map((v) => v.path),
      ["/text", "/more"],
    );
    assert.ok(!rec.cases().includes("result"));
  });

  it("a handler returning nothing is an output violation too", async () => {
    const { service } = run(async () => undefined);
    const rec = recordingSink();
    await service.invoke(invokeRequest("echo", { text: "a" }), rec.sink);
    const t = onlyTerminal(rec);
    assert.equal(t.case === "error" && t.value.category, ToolErrorCategory.UNKNOWN);
  });

  it("a conforming result is sent as the one terminal result", async () => {
    const { service } = run(async (i) => ({ text: i.text.toUpperCase() }));
    const rec = recordingSink();
    await service.invoke(invokeRequest("echo", { text: "a" }), rec.sink);
    assert.deepEqual(rec.cases(), ["result"]);
    const t = onlyTerminal(rec);
    assert.deepEqual(t.case === "result" && t.value.payload, { text: "A" });
  });
});
