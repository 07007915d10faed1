// `harness-tool mcp serve`'s parts without a client: the annotation table, the config file's
// sensitive values from the environment, a Preview as text, and the command line. The served
// examples driven by the MCP SDK's client are in mcp-serve-stdio.test.ts.
import assert from "node:assert/strict";
import { it } from "node:test";
import { create } from "@bufbuild/protobuf";
import { AttrType, ConfigSchemaSchema } from "harness-tool/generated/pluggableharness/config/v1/config_pb.js";
import { RiskClass, ToolKind, ToolSchemaSchema } from "harness-tool/generated/pluggableharness/tool/v1/tool_pb.js";
import { mcpTool, toolAnnotations, toolTitle } from "../../cli/mcp/serve/mcp-tools.js";
import { renderTreeText } from "../../cli/mcp/serve/person-gate.js";
import { serveConfig } from "../../cli/mcp/serve/serve-config.js";
import { cli } from "./support/run-cli.js";

const tool = (kind: ToolKind, risk: RiskClass, idempotent = false) =>
  create(ToolSchemaSchema, { name: "write_file", kind, risk, idempotent, description: "Writes." });

it("maps kind, risk and idempotent to MCP's hints as docs/guide.md's table says", () => {
  const rows = [
    [ToolKind.DATA_SOURCE, RiskClass.READ_ONLY, true, { readOnlyHint: true, idempotentHint: true }],
    [ToolKind.INTERACTIVE, RiskClass.READ_ONLY, false, { readOnlyHint: true, idempotentHint: false }],
    [ToolKind.RESOURCE, RiskClass.LOW, true, { readOnlyHint: false, destructiveHint: false, idempotentHint: true }],
    [
      ToolKind.RESOURCE,
      RiskClass.MODERATE,
      false,
      { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
    ],
    [ToolKind.RESOURCE, RiskClass.HIGH, false, { readOnlyHint: false, destructiveHint: true, idempotentHint: false }],
    [ToolKind.RESOURCE, RiskClass.CRITICAL, true, { readOnlyHint: false, destructiveHint: true, idempotentHint: true }],
  ] as const;
  for (const [kind, risk, idempotent, hints] of rows)
    assert.deepEqual(toolAnnotations(tool(kind, risk, idempotent)), { title: "Write file", ...hints });
  assert.equal(toolTitle("web-fetch"), "Web fetch");
  const listed = mcpTool(tool(ToolKind.RESOURCE, RiskClass.HIGH));
  assert.deepEqual(listed._meta, {
    "harness-tool/kind": "resource",
    "harness-tool/risk": "high",
    "harness-tool/streaming": false,
  });
  assert.equal(listed.inputSchema.type, "object");
  assert.equal(listed.outputSchema?.type, "object");
});

const schema = create(ConfigSchemaSchema, {
  attributes: [
    { name: "api_key", type: AttrType.STRING, sensitive: true },
    { name: "endpoint", type: AttrType.STRING },
    { name: "max_bytes", type: AttrType.NUMBER },
    {
      name: "db",
      type: AttrType.OBJECT,
      objectAttributes: [{ name: "password", type: AttrType.STRING, sensitive: true }],
    },
  ],
});

it("reads sensitive config values only from the environment, as agent.hcl's env()", () => {
  const env = { WEB_KEY: "s3cret", MAX: "4096", DB_PASSWORD: "pw" };
  assert.deepEqual(
    serveConfig(
      schema,
      {
        api_key: { env: "WEB_KEY" },
        endpoint: "https://x",
        max_bytes: { env: "MAX" },
        db: { password: { env: "DB_PASSWORD" } },
      },
      env,
    ),
    { api_key: "s3cret", endpoint: "https://x", max_bytes: 4096, db: { password: "pw" } },
  );
  assert.throws(
    () => serveConfig(schema, { api_key: "s3cret" }, env),
    /^UsageError: api_key is sensitive: it comes only from the environment, write \{"env": "API_KEY"\}/,
  );
  assert.throws(() => serveConfig(schema, { db: { password: "pw" } }, env), /db\.password is sensitive/);
  assert.throws(
    () => serveConfig(schema, { api_key: { env: "UNSET_KEY" } }, env),
    /api_key reads the environment variable UNSET_KEY, which is not set/,
  );
  // An attribute the provider does not declare is passed on for Configure to refuse.
  assert.deepEqual(serveConfig(schema, { other: 1 }, env), { other: 1 });
});

it("shows a Preview's text, not its structure's names", () => {
  const tree = {
    root: {
      group: {
        children: [
          { text: { spans: [{ text: "Write /tmp/a.txt" }] } },
          { codeBlock: { language: "sh", content: "hello" } },
        ],
      },
    },
  };
  assert.deepEqual(renderTreeText(tree), ["Write /tmp/a.txt", "hello"]);
});

it("is listed in --help as mcp serve, with its own help", async () => {
  assert.match((await cli(["--help"])).out, /^ {2}mcp serve +serve a provider's tools as an MCP server over stdio/m);
  const help = await cli(["mcp", "serve", "--help"]);
  assert.equal(help.code, 0);
  assert.match(help.out, /^Usage: harness-tool mcp serve <provider>/);
  assert.match(help.out, /--confirm <resources\|none>/);
  assert.equal((await cli(["help", "mcp", "serve"])).out, help.out);
  const bad = await cli(["mcp", "serve", "examples/exec", "--confirm", "all"]);
  assert.equal(bad.code, 2);
  assert.match(bad.err, /--confirm takes resources or none, not all/);
});
