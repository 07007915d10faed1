// The provider-wide rules, written once in runtime/schema/provider-rules.ts: each contradiction is
// reported with its rule and subject, and start-up (createToolService) refuses a provider that
// breaks one, before the handshake.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { defineConfig, type ProviderDefinition } from "../../../runtime/index.js";
import {
  checkProviderDeclaration,
  formatProviderViolation,
  providerRuleSources,
  type ProviderRule,
  type ProviderRuleInput,
} from "../../../runtime/schema/index.js";
import { createToolService } from "../../../runtime/service/calls/index.js";
import { echo, providerWith } from "../service/support/sample-tools.js";

const good: ProviderRuleInput = {
  source: "github.com/acme/provider-notes",
  configAttributes: [
    { name: "region", type: "string", sensitive: false, defaultJson: '"eu"' },
    { name: "api_key", type: "string", sensitive: true },
    {
      name: "limits",
      type: "object",
      sensitive: false,
      objectAttributes: [{ name: "rps", type: "number", sensitive: false }],
    },
  ],
  slashCommands: [{ name: "review", template: "Review {path}." }],
};

const broken: [ProviderRule, string, Partial<ProviderRuleInput>][] = [
  ["source-forge-address", "source", { source: "acme/notes" }],
  ["source-forge-address", "source", { source: "example.com/acme/notes" }],
  ["source-forge-address", "source", { source: "github.com/acme" }],
  [
    "config-sensitive-default",
    "config:api_key",
    { configAttributes: [{ name: "api_key", type: "string", sensitive: true, defaultJson: '"sk-live"' }] },
  ],
  [
    "config-object-attributes",
    "config:limits",
    { configAttributes: [{ name: "limits", type: "object", sensitive: false }] },
  ],
  [
    "config-object-attributes",
    "config:limits",
    { configAttributes: [{ name: "limits", type: "object", sensitive: false, objectAttributes: [] }] },
  ],
  [
    "config-object-attributes-only",
    "config:n",
    {
      configAttributes: [
        {
          name: "n",
          type: "number",
          sensitive: false,
          objectAttributes: [{ name: "m", type: "number", sensitive: false }],
        },
      ],
    },
  ],
  ["config-attribute-name", "config:1st", { configAttributes: [{ name: "1st", type: "string", sensitive: false }] }],
  [
    "config-attribute-unique",
    "config:a",
    {
      configAttributes: [
        { name: "a", type: "string", sensitive: false },
        { name: "a", type: "bool", sensitive: false },
      ],
    },
  ],
  ["config-attribute-type", "config:a", { configAttributes: [{ name: "a", type: "strng", sensitive: false }] }],
  [
    "config-default-type",
    "config:n",
    { configAttributes: [{ name: "n", type: "number", sensitive: false, defaultJson: '"five"' }] },
  ],
  [
    "config-default-json",
    "config:a",
    { configAttributes: [{ name: "a", type: "string", sensitive: false, defaultJson: "eu" }] },
  ],
  [
    "config-object-attributes",
    "config:outer.inner",
    {
      configAttributes: [
        {
          name: "outer",
          type: "object",
          sensitive: false,
          objectAttributes: [{ name: "inner", type: "object", sensitive: false }],
        },
      ],
    },
  ],
  ["slash-command-name", "slash_command:0:name", { slashCommands: [{ name: "/go", template: "Go." }] }],
  ["slash-command-name", "slash_command:0:name", { slashCommands: [{ name: "go go", template: "Go." }] }],
  ["slash-command-name", "slash_command:0:name", { slashCommands: [{ name: "", template: "Go." }] }],
  [
    "slash-command-unique",
    "slash_command:1:name",
    {
      slashCommands: [
        { name: "go", template: "Go." },
        { name: "go", template: "Go on." },
      ],
    },
  ],
  ["slash-command-template", "slash_command:0:template", { slashCommands: [{ name: "go", template: "  " }] }],
];

function subject(v: ReturnType<typeof checkProviderDeclaration>[number]): string {
  const s = v.subject;
  if (s.kind === "source") return "source";
  if (s.kind === "config") return `config:${s.path.join(".")}`;
  return `slash_command:${s.index}:${s.field}`;
}

describe("provider-wide rules", () => {
  it("a provider that keeps them breaks none", () => {
    assert.deepEqual(checkProviderDeclaration(good), []);
    assert.deepEqual(checkProviderDeclaration({ ...good, source: "gitlab.com/acme/tools/notes" }), []);
  });

  for (const [rule, where, change] of broken) {
    it(`${rule} at ${where}: ${JSON.stringify(change)}`, () => {
      const found = checkProviderDeclaration({ ...good, ...change });
      assert.deepEqual(
        found.map((v) => [v.rule, subject(v), v.severity]),
        [[rule, where, "error"]],
      );
      assert.ok(found[0]?.message && found[0].fix, "a violation says what is wrong and how to fix it");
    });
  }

  it("covers every rule and names a source for each", () => {
    const covered = new Set(broken.map(([rule]) => rule));
    for (const rule of Object.keys(providerRuleSources) as ProviderRule[])
      assert.ok(covered.has(rule), `no case breaks ${rule}`);
  });

  it("formats a violation as provider: message (fix) [rule]", () => {
    const [v] = checkProviderDeclaration({ ...good, slashCommands: [{ name: "/go", template: "Go." }] });
    assert.ok(v);
    assert.equal(
      formatProviderViolation(v),
      'provider: slash command "/go" is not a bare command word (name it as typed after "/", one word of letters, digits, _ or -, e.g. "go") [slash-command-name]',
    );
  });
});

describe("start-up refuses a provider that breaks a provider-wide rule", () => {
  const provider = (extra: Partial<ProviderDefinition>): ProviderDefinition => ({
    ...providerWith(echo, async (input) => input),
    ...extra,
  });
  const refused = (extra: Partial<ProviderDefinition>, pattern: RegExp) =>
    assert.throws(() => createToolService(provider(extra), { stderr: () => {} }), pattern);

  it("a sensitive config attribute with a default", () => {
    refused(
      {
        config: {
          attributes: [
            { name: "api_key", type: "string", required: false, sensitive: true, description: "", defaultJson: '"sk"' },
          ],
          decode: () => ({ ok: true, value: {} }),
        },
      },
      /config attribute "api_key": a sensitive attribute has a default.*\[config-sensitive-default\]/,
    );
  });

  it("an object config attribute with no attributes", () => {
    refused(
      {
        config: {
          attributes: [{ name: "limits", type: "object", required: false, sensitive: false, description: "" }],
          decode: () => ({ ok: true, value: {} }),
        },
      },
      /config attribute "limits": an object with no attributes.*\[config-object-attributes\]/,
    );
  });

  it("slash commands that are no bare word or have no template, all at once", () => {
    refused(
      {
        slashCommands: [
          { name: "/go", description: "", template: "Go." },
          { name: "go go", description: "", template: "Go." },
          { name: "stop", description: "", template: "" },
        ],
      },
      /"\/go" is not a bare command word.*\n.*"go go" is not a bare command word.*\n.*"stop" has an empty template/,
    );
  });

  it("a tool name a model API would refuse", () => {
    for (const name of ["2fa_code", "x".repeat(65), "files.read"]) {
      const tool = { ...echo, declaration: { ...echo.declaration, name } };
      assert.throws(
        () =>
          createToolService(
            providerWith(tool, async (input) => input),
            { stderr: () => {} },
          ),
        /is not 1 to 64 letters, digits, _ or -, starting with a letter or _ \(model APIs refuse it\).*\[name-format\]/,
        name,
      );
    }
  });

  it("a source that is not a forge address", () => {
    refused({ source: "acme/hand" }, /source "acme\/hand" is not a git-forge address.*\[source-forge-address\]/);
  });

  it("defineConfig refuses a sensitive attribute with a default when the provider is defined", () => {
    assert.throws(
      () => defineConfig([{ name: "token", type: "string", sensitive: true, defaultJson: '"t"' }]),
      /config attribute "token": a sensitive attribute has a default/,
    );
  });
});
