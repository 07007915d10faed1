// The ToolSchema invariants, rule by rule: each case breaks exactly one rule and must be reported
// with that rule id and subject; a valid declaration of each kind passes.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  checkToolDeclaration,
  checkToolDeclarations,
  formatViolation,
  invariantSources,
  type InvariantRule,
  type ToolDeclaration,
} from "../../../runtime/schema/index.js";

const input = { type: "object", properties: { path: { type: "string" } }, required: ["path"] } as const;
const output = { type: "object", properties: { ok: { type: "boolean" } } } as const;

const base: ToolDeclaration = {
  name: "read_file",
  kind: "data_source",
  risk: "read_only",
  description: "Reads a file.",
  inputSchema: input,
  outputSchema: output,
  streaming: false,
  processBacked: false,
  concurrency: { safe: true },
  defaultTimeoutMs: 5000,
  idempotent: true,
  terminatesTurn: false,
  preview: false,
};

function errors(tool: ToolDeclaration) {
  return checkToolDeclaration(tool).filter((v) => v.severity === "error");
}

describe("valid declarations", () => {
  const valid: ToolDeclaration[] = [
    base,
    {
      ...base,
      name: "write_file",
      kind: "resource",
      risk: "moderate",
      concurrency: { safe: true, keyFields: ["path"] },
    },
    {
      ...base,
      name: "bash",
      kind: "resource",
      risk: "high",
      concurrency: { safe: false },
      streaming: true,
      processBacked: true,
      idempotent: false,
    },
    { ...base, name: "finish", kind: "resource", risk: "low", terminatesTurn: true },
    {
      name: "ask_user",
      kind: "interactive",
      risk: "read_only",
      description: "Asks.",
      inputSchema: input,
      outputSchema: output,
      streaming: false,
      processBacked: false,
      defaultTimeoutMs: 1,
      idempotent: false,
      terminatesTurn: false,
      preview: false,
    },
  ];
  for (const tool of valid) {
    it(`${tool.name} (${tool.kind}/${tool.risk}) breaks no rule`, () =>
      assert.deepEqual(checkToolDeclaration(tool), []));
  }
});

const broken: [InvariantRule, string, ToolDeclaration][] = [
  ["name-format", "name", { ...base, name: "read file" }],
  ["name-format", "name", { ...base, name: "" }],
  ["name-format", "name", { ...base, name: "2fa_code" }],
  ["name-format", "name", { ...base, name: `read_${"x".repeat(60)}` }],
  ["name-format", "name", { ...base, name: "files.read" }],
  ["description-required", "description", { ...base, description: "  " }],
  ["kind-required", "kind", { ...base, kind: "unspecified" }],
  ["risk-required", "risk", { ...base, risk: "unspecified" }],
  ["risk-matches-kind", "risk", { ...base, risk: "high" }],
  ["risk-matches-kind", "risk", { ...base, kind: "resource", risk: "read_only" }],
  [
    "risk-matches-kind",
    "risk",
    { ...base, kind: "interactive", risk: "low", concurrency: undefined } as unknown as ToolDeclaration,
  ],
  ["concurrency-required", "concurrency", (({ concurrency: _c, ...rest }) => rest)(base)],
  [
    "concurrency-required",
    "concurrency",
    (({ concurrency: _c, ...rest }) => ({ ...rest, kind: "resource" as const, risk: "low" as const }))(base),
  ],
  ["concurrency-forbidden", "concurrency", { ...base, kind: "interactive" }],
  ["key-fields-need-safe", "concurrency.key_fields", { ...base, concurrency: { safe: false, keyFields: ["path"] } }],
  ["key-fields-in-input", "concurrency.key_fields", { ...base, concurrency: { safe: true, keyFields: ["size"] } }],
  ["terminates-turn-resource-only", "terminates_turn", { ...base, terminatesTurn: true }],
  ["idempotent-required", "idempotent", { ...base, idempotent: undefined }],
  [
    "process-backed-streams",
    "streaming",
    { ...base, kind: "resource", risk: "high", processBacked: true, streaming: false },
  ],
  [
    "input-schema-subset",
    "input_schema",
    { ...base, inputSchema: { type: "object", properties: { n: { type: "integer" } } } as never },
  ],
  ["output-schema-subset", "output_schema", { ...base, outputSchema: { type: "string" } as never }],
  ["timeout-positive", "default_timeout", { ...base, defaultTimeoutMs: 0 }],
];

describe("each broken rule is reported with its id and subject", () => {
  for (const [rule, subject, tool] of broken) {
    it(`${rule}: ${JSON.stringify(tool.name)} ${tool.kind}/${tool.risk}`, () => {
      const found = errors(tool);
      assert.equal(found.length, 1, found.map(formatViolation).join("\n"));
      assert.equal(found[0]?.rule, rule);
      assert.equal(found[0]?.subject, subject);
      assert.ok(found[0]?.message && found[0].fix, "a violation says what is wrong and how to fix it");
    });
  }

  it("gives the index of each key field that is not in the input", () => {
    const found = errors({ ...base, concurrency: { safe: true, keyFields: ["size", "path", "mode"] } });
    assert.deepEqual(
      found.map((v) => [v.rule, v.index]),
      [
        ["key-fields-in-input", 0],
        ["key-fields-in-input", 2],
      ],
    );
  });

  it("covers every error rule and names a protocol source for each", () => {
    const covered = new Set(broken.map(([rule]) => rule));
    for (const rule of Object.keys(invariantSources) as InvariantRule[]) {
      if (rule === "name-unique" || rule === "default-timeout-recommended" || rule === "data-source-safe") continue;
      assert.ok(covered.has(rule), `no case breaks ${rule}`);
    }
  });
});

describe("provider-level checks", () => {
  it("reports a duplicate tool name once, naming it", () => {
    const found = checkToolDeclarations([base, { ...base, description: "Again." }]);
    assert.deepEqual(
      found.map((v) => v.rule),
      ["name-unique"],
    );
    assert.match(found[0]?.message ?? "", /"read_file" is declared more than once/);
  });

  it("warns, without failing, when default_timeout is left out", () => {
    const { defaultTimeoutMs: _t, ...noTimeout } = base;
    const found = checkToolDeclaration(noTimeout);
    assert.deepEqual(
      found.map((v) => [v.rule, v.severity]),
      [["default-timeout-recommended", "warning"]],
    );
  });

  it("takes the names every model API takes: 64 characters, a leading _, a - inside", () => {
    for (const name of ["x".repeat(64), "_private", "read-file", "a1"])
      assert.deepEqual(errors({ ...base, name }), [], name);
  });

  it("warns, without failing, when a data_source declares safe: false", () => {
    const found = checkToolDeclaration({ ...base, concurrency: { safe: false } });
    assert.deepEqual(
      found.map((v) => [v.rule, v.severity, v.subject]),
      [["data-source-safe", "warning", "concurrency"]],
    );
    assert.deepEqual(
      checkToolDeclaration({ ...base, kind: "resource", risk: "low", concurrency: { safe: false } }),
      [],
    );
  });

  it("formats a violation as tool: message (fix) [rule]", () => {
    const [v] = errors({ ...base, risk: "high" });
    assert.ok(v);
    assert.equal(
      formatViolation(v),
      "read_file: a data_source tool must be read_only, not high (set risk to RISK_CLASS_READ_ONLY, or make the tool a resource if it mutates) [risk-matches-kind]",
    );
  });
});
