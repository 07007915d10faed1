// The check report and the tools table fitted to the terminal: snapshots at 80 and 100 columns,
// no line wider than the terminal, nothing cut: reasons wrapped at spaces or between tokens.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { create } from "@bufbuild/protobuf";
import { renderReport, type RuleResult } from "../../cli/check/conformance-report.js";
import { renderToolsTable } from "../../cli/commands/schema-command.js";
import { renderTable } from "../../cli/terminal/table.js";
import { GetSchemaResponseSchema, RiskClass, ToolKind } from "../../generated/pluggableharness/tool/v1/tool_pb.js";
import { assertSnapshot, widestLine } from "../support/output-snapshot.js";

/** Rows as a real run against the scaffold prints them (long sections, reasons and rule ids). */
const results: RuleResult[] = [
  {
    rule: "handshake.line",
    section: "go-plugin: handshake",
    status: "pass",
    why: "1|1|unix|/tmp/plugin2870166353/plugin.sock|grpc",
  },
  {
    rule: "handshake.cookie-refused",
    section: "go-plugin: magic cookie",
    status: "pass",
    why: "exit 1: This binary is a plugin. These are not meant to be executed directly. Please execute the program that consumes these plugins, which will load any plugins automatically",
  },
  {
    rule: "schema.input-schema-subset",
    section: "GetSchema: ToolSchema.input_schema (common subset)",
    status: "pass",
    why: "",
  },
  {
    rule: "schema.default-timeout-recommended",
    section: "GetSchema: ToolSchema.default_timeout (SHOULD)",
    status: "warn",
    why: "ask_user: no default_timeout: the kernel's global default applies",
  },
  {
    rule: "invoke.valid:save_note",
    section: "Invoke",
    status: "skip",
    why: 'resource tool, not invoked unless allowed: --allow-resources --cwd <scratch dir> --args-file args.json, with args.json holding {"save_note":{"title":"example","text":"example"}}',
  },
  {
    rule: "invoke.invalid-arguments:a_tool_with_a_really_quite_long_name_indeed",
    section: "error taxonomy: invalid_arguments",
    status: "fail",
    why: "a required property left out: got a result, not invalid_arguments",
  },
];

describe("the check report fits the terminal", () => {
  for (const width of [80, 100]) {
    it(`at ${width} columns`, () => {
      const report = renderReport(results, width);
      assert.ok(widestLine(report) <= width, report);
      assertSnapshot(`check-report-${width}`, report);
      // Every word of every reason is still there, wrapped onto continuation lines.
      const text = report.replace(/\s+/g, " ");
      for (const word of results.flatMap((r) => r.why.split(/\s+/)).filter((w) => w.length > 0 && w.length < 20))
        assert.ok(text.includes(word), `"${word}" was lost`);
    });
  }

  it("cuts nothing: rule ids whole (or wrapped between their parts), JSON and paths wrapped between tokens", () => {
    for (const width of [80, 100]) {
      const report = renderReport(results, width);
      assert.doesNotMatch(report, /…/, `${width} columns`);
      // Every short rule id stands whole on its line; the long one wraps after a separator.
      for (const { rule } of results.filter((r) => r.rule.length <= 36))
        assert.match(report, new RegExp(`^${rule.replace(/[.]/g, "\\.")}\\s`, "m"));
      assert.match(report, /^invoke\.invalid-arguments:a_tool_\s[^\n]*\nwith_a_really_quite_long_name_indeed\s/m);
      // The JSON breaks after a comma, the handshake line after a slash: no token is split.
      assert.match(report, /\{"save_note":\{"title":"example",\n[^\n]*\s"text":"example"\}\}/);
      assert.match(report, /1\|1\|unix\|\/tmp\/plugin2870166353\/\n[^\n]*\splugin\.sock\|grpc/);
    }
    // The spec section is shown where it fits beside readable reasons, and left out (it is in --json) where not.
    assert.match(renderReport(results, 100), /^rule\s+spec section\s+result\s+why$/m);
    assert.match(renderReport(results, 80), /^rule\s+result\s+why$/m);
    const wide = renderReport(results, 400);
    assert.match(
      wide,
      /invoke\.invalid-arguments:a_tool_with_a_really_quite_long_name_indeed +error taxonomy: invalid_arguments +fail +a required property/,
    );
  });

  it("wraps a word longer than its column mid-word rather than overflowing", () => {
    const table = renderTable(["a", "b"], [["x", "y".repeat(30)]], {
      width: 14,
      overflow: [undefined, "wrap"],
      shrink: [{ column: 1, downTo: 10 }],
    });
    assert.ok(widestLine(table) <= 14, table);
    assert.equal(
      table
        .split("\n")
        .filter((l) => l.includes("y"))
        .join("")
        .replace(/[^y]/g, "").length,
      30,
    );
  });
});

describe("the schema tools table fits the terminal", () => {
  const schema = create(GetSchemaResponseSchema, {
    tools: [
      {
        name: "read_note",
        kind: ToolKind.DATA_SOURCE,
        risk: RiskClass.READ_ONLY,
        concurrency: { safe: true },
        idempotent: true,
        defaultTimeout: { seconds: 10n },
      },
      {
        name: "synchronise_every_calendar_of_the_whole_organisation",
        kind: ToolKind.RESOURCE,
        risk: RiskClass.HIGH,
        concurrency: { safe: true, keyFields: ["organisation_id", "calendar_id"] },
        streaming: true,
        terminatesTurn: true,
      },
    ],
  });
  for (const width of [80, 100]) {
    it(`at ${width} columns`, () => {
      const table = renderToolsTable(schema, width);
      assert.ok(widestLine(table) <= width, table);
      assert.doesNotMatch(table, /…/, "no tool name or key field is cut");
      assertSnapshot(`schema-table-${width}`, table);
    });
  }
});
