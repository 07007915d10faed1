// The imported proto's classification blocks: read back per rpc, never borrowed from the next
// tool when an author removed one, and written anew (resource/high) for a tool without one.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { classificationsOf, defaultClassification, protoText } from "../../cli/mcp/import/write-proto.js";
import type { PlannedTool } from "../../cli/mcp/import/import-plan.js";

const tool = (name: string, rpc: string): PlannedTool => ({
  name,
  rpc,
  handler: rpc[0]!.toLowerCase() + rpc.slice(1),
  description: `The ${name} tool.`,
  inputSchema: { type: "object", properties: {} },
  hints: { readOnlyHint: true },
});
const spec = (kept: Map<string, string>) => ({
  name: "demo",
  pascal: "Demo",
  source: "github.com/you/provider-demo",
  commandLine: "node server.js --flag\nwith a newline",
  secrets: [],
  tools: [tool("first", "First"), tool("second", "Second")],
  kept,
});

describe("the imported proto's classification blocks", () => {
  it("reads each tool's block back as written, the edited one kept", () => {
    const edited =
      "      kind: TOOL_KIND_DATA_SOURCE\n      risk: RISK_CLASS_READ_ONLY\n      idempotent: true\n      concurrency: {safe: true}";
    const text = protoText(spec(new Map([["second", edited]])));
    const blocks = classificationsOf(text);
    assert.equal(blocks.get("first"), defaultClassification);
    assert.equal(blocks.get("second"), edited);
    assert.doesNotMatch(text, /--flag\nwith/, "the command line stays on its comment's line");
  });

  it("does not borrow the next rpc's block for a tool whose block was removed", () => {
    const text = protoText(spec(new Map()));
    const first = text.indexOf('name: "first"');
    const start = text.indexOf("      // Classification:", first);
    const end =
      text.indexOf("      // (end of the classification)\n", first) + "      // (end of the classification)\n".length;
    const blocks = classificationsOf(text.slice(0, start) + text.slice(end));
    assert.equal(blocks.has("first"), false);
    assert.equal(blocks.get("second"), defaultClassification);
  });
});
