// GetSchema is built once; a provider that breaks an invariant is refused when the service is
// created (before the handshake), naming the tool and the rule.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ToolKind } from "../../../generated/pluggableharness/tool/v1/tool_pb.js";
import { AttrType } from "../../../generated/pluggableharness/config/v1/config_pb.js";
import { HookPoint } from "../../../generated/pluggableharness/common/v1/common_pb.js";
import { defineConfig, defineProvider, type ProviderDefinition } from "../../../runtime/index.js";
import { validatorFor, type ToolDeclaration } from "../../../runtime/schema/index.js";
import { createToolService, ProviderDefinitionError } from "../../../runtime/service/calls/index.js";
import { echo, providerWith, textSchema } from "./support/sample-tools.js";

function handBuilt(declaration: Partial<ToolDeclaration>, extra: Partial<ProviderDefinition> = {}): ProviderDefinition {
  const d: ToolDeclaration = { ...echo.declaration, ...declaration };
  return {
    name: "hand",
    version: "1.0.0",
    source: "github.com/acme/hand",
    tools: [
      {
        declaration: d,
        validateInput: validatorFor(d.inputSchema),
        validateOutput: validatorFor(d.outputSchema),
        handler: (async () => ({})) as never,
      },
    ],
    config: { attributes: [], decode: () => ({ ok: true, value: {} }) },
    slashCommands: [],
    ...extra,
  };
}

describe("GetSchema", () => {
  it("returns the same response object every time (built once)", () => {
    const service = createToolService(
      providerWith(echo, async (i) => i),
      { stderr: () => {} },
    );
    const first = service.getSchema();
    assert.equal(service.getSchema(), first);
    assert.equal(first.tools.length, 1);
    assert.equal(first.tools[0]!.name, "echo");
    assert.equal(first.tools[0]!.kind, ToolKind.DATA_SOURCE);
    assert.equal(first.tools[0]!.defaultTimeout?.seconds, 5n);
  });

  it("carries the config schema, slash commands and hook points", () => {
    const provider = providerWith(echo, async (i) => i, {
      config: defineConfig([
        { name: "root", type: "string", required: true, description: "the jail" },
        { name: "api_key", type: "string", sensitive: true },
      ]),
      slashCommands: [{ name: "hello", description: "says hello", template: "Say hello to {{args}}" }],
      hooks: { "post-tool-call": { observe: async () => {} }, "pre-tool-call": { veto: async () => "allow" as const } },
    });
    const schema = createToolService(provider, { stderr: () => {} }).getSchema();
    assert.deepEqual(
      schema.configSchema?.attributes.map((a) => [a.name, a.type, a.required, a.sensitive]),
      [
        ["root", AttrType.STRING, true, false],
        ["api_key", AttrType.STRING, false, true],
      ],
    );
    assert.deepEqual(
      schema.slashCommands.map((c) => c.name),
      ["hello"],
    );
    // Derived from the hooks' keys, in wire order.
    assert.deepEqual(schema.supportedHookPoints, [HookPoint.PRE_TOOL_CALL, HookPoint.POST_TOOL_CALL]);
  });
});

describe("the start-up check", () => {
  it("refuses a resource declared read_only, naming the tool and the rule", () => {
    assert.throws(
      () => createToolService(handBuilt({ kind: "resource", risk: "read_only" }), { stderr: () => {} }),
      (error: unknown) =>
        error instanceof ProviderDefinitionError && /echo: .*\[risk-matches-kind\]/.test(error.message),
    );
  });

  it("refuses key_fields that are not input fields", () => {
    assert.throws(
      () => createToolService(handBuilt({ concurrency: { safe: true, keyFields: ["nope"] } }), { stderr: () => {} }),
      /echo: key field "nope" is not a top-level field of the input .*\[key-fields-in-input\]/,
    );
  });

  it("refuses duplicate tool names", () => {
    const one = handBuilt({});
    const provider = { ...one, tools: [one.tools[0]!, one.tools[0]!] };
    assert.throws(() => createToolService(provider, { stderr: () => {} }), /\[name-unique\]/);
  });

  it("refuses a handler that is not a function", () => {
    const one = handBuilt({});
    const provider = { ...one, tools: [{ ...one.tools[0]!, handler: "nope" as never }] };
    assert.throws(
      () => createToolService(provider, { stderr: () => {} }),
      /echo: the handler is not a function .*\[handler-function\]/,
    );
  });

  it("refuses a preview declared without a handler, and a handler without the declaration", () => {
    assert.throws(
      () => createToolService(handBuilt({ preview: true }), { stderr: () => {} }),
      /\[preview-matches-declaration\]/,
    );
    const one = handBuilt({});
    const provider = { ...one, tools: [{ ...one.tools[0]!, preview: (async () => ({})) as never }] };
    assert.throws(() => createToolService(provider, { stderr: () => {} }), /\[preview-matches-declaration\]/);
  });

  it("refuses an input schema outside the subset", () => {
    assert.throws(
      () =>
        createToolService(
          handBuilt({ inputSchema: { type: "object", properties: { n: { type: "integer" } } } as never }),
          { stderr: () => {} },
        ),
      /\[input-schema-subset\]/,
    );
  });

  it("reports warnings on stderr without throwing", () => {
    const lines: string[] = [];
    const { defaultTimeoutMs: _, ...noTimeout } = echo.declaration;
    const provider = handBuilt({});
    const service = createToolService(
      { ...provider, tools: [{ ...provider.tools[0]!, declaration: noTimeout }] },
      { stderr: (l) => lines.push(l) },
    );
    assert.ok(service.getSchema());
    assert.equal(lines.length, 1);
    assert.match(lines[0]!, /\[WARN\].*echo: no default_timeout.*\[default-timeout-recommended\]/);
  });

  it("refuses a bad config declaration and an empty identity", () => {
    assert.throws(
      () =>
        createToolService(
          handBuilt(
            {},
            {
              config: {
                attributes: [{ name: "a", type: "strng" as never, required: false, sensitive: false, description: "" }],
                decode: () => ({ ok: true, value: {} }),
              },
            },
          ),
          { stderr: () => {} },
        ),
      /unknown type "strng".*\[config-attribute-type\]/,
    );
    assert.throws(
      () => createToolService(handBuilt({}, { version: "" }), { stderr: () => {} }),
      /version is empty.*\[identity-required\]/,
    );
  });

  it("accepts what defineProvider builds from a generated-style tool", () => {
    const provider = defineProvider({ name: "gen", version: "0.0.1", source: "github.com/acme/x", tools: { echo } }, {
      echo: async () => ({ text: "" }),
    } as never);
    assert.doesNotThrow(() => createToolService(provider, { stderr: () => {} }));
    void textSchema;
  });
});
