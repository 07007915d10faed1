/**
 * The files an imported provider has beside init's scaffold, or in place of its files: the entry on
 * `harness-tool/mcp`'s proxy, a test of what it serves, an empty dev configuration (the import's
 * command line is the default), the kernel's block for it, and the MCP SDK among its dependencies.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { templatesFolder } from "../../templates/scaffold-files.js";

/** The MCP SDK the imported provider runs its client on (an exact version, as this CLI uses). */
function sdkVersion(): string {
  const cliPackage = JSON.parse(readFileSync(path.join(templatesFolder(), "..", "package.json"), "utf8")) as {
    dependencies?: Record<string, string>;
  };
  return cliPackage.dependencies?.["@modelcontextprotocol/sdk"] ?? "1.32.2";
}

function mainText(name: string, pascal: string): string {
  return `#!/usr/bin/env node
// The provider's executable: the kernel starts it directly and talks to it through go-plugin.
// Every tool is proxied to the MCP server mcp/imported.json names (harness-tool/mcp): Configure
// starts the server and refuses it when its tools drifted from the import in a breaking or
// risk-relevant way; each call is a tools/call. Written by \`harness-tool mcp import\`.
import { serve } from "harness-tool";
import { type ImportedServer, mcpProxy } from "harness-tool/mcp";
import packageJson from "../package.json" with { type: "json" };
import imported from "../mcp/imported.json" with { type: "json" };
import { create${pascal}Provider, type ${pascal}Handlers } from "./gen/${name}/v1/${name}_tool.js";

const proxy = mcpProxy(imported as ImportedServer);
await serve(
  create${pascal}Provider(proxy.handlers as unknown as ${pascal}Handlers, {
    version: packageJson.version,
    configure: proxy.configure,
  }),
);
`;
}

function testText(name: string): string {
  return `// Launches the built provider (dist/provider.mjs) exactly as the kernel does, which starts the MCP
// server at Configure, and checks that it serves every imported tool. Run \`npm run build\` first.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { after, before, describe, it } from "node:test";
import { launch, type LaunchedProvider } from "harness-tool/testing";

const imported = JSON.parse(readFileSync(new URL("../../mcp/imported.json", import.meta.url), "utf8")) as {
  tools: { name: string }[];
};

const entry = fileURLToPath(new URL("../provider.mjs", import.meta.url));

describe("the ${name} provider", () => {
  let provider: LaunchedProvider;
  before(async () => {
    provider = await launch(entry);
  });
  after(async () => {
    await provider?.kill();
  });

  it("starts the MCP server at Configure: its tools have not drifted from the import", async () => {
    await provider.configure({});
  });

  it("serves every imported tool", async () => {
    const schema = await provider.getSchema();
    assert.deepEqual(schema.tools.map((t) => t.name).sort(), imported.tools.map((t) => t.name).sort());
  });
});
`;
}

function readme(name: string, importCommand: string): string {
  return `# provider-${name.replace(/_/g, "-")}

A tool provider for the PluggableHarness kernel that proxies an MCP server's tools, written by
\`harness-tool mcp import\` (docs/guide.md, "Importing an MCP server", in harness-tool).

- \`proto/${name}/v1/${name}.proto\` declares each tool; its classification block (kind, risk,
  idempotent, concurrency, default_timeout) is yours to edit, and re-importing keeps it.
- \`mcp/imported.json\` is the imported surface and the server's command line: Configure starts the
  server and refuses it when its tools drifted in a breaking or risk-relevant way.
- \`src/main.ts\` serves the generated provider with \`harness-tool/mcp\`'s proxy: no handlers to write.
- \`npm run generate && npm run build && npm run docs && npm test\`, then \`npm run check\`: \`npm
  run docs\` writes docs/ (a page per tool) from the build, and \`npm test\` ends by checking it.

Follow the server when it changes:

\`\`\`sh
${importCommand}
npm run generate && npm run build && npm run docs
\`\`\`
`;
}

function agentHcl(name: string, secrets: readonly string[]): string {
  const secretLines = secrets.map(
    (secret) => `  # A secret for the server, never a literal:\n  # ${secret.toLowerCase()} = env("${secret}")\n`,
  );
  return `# agent.hcl: the ${name} provider, an MCP server imported by harness-tool mcp import.
provider "${name}" {
  # Every attribute is optional: without them the provider starts the server it was imported from.
  # command = "node"
  # args    = ["server.js"]
${secretLines.join("")}}
`;
}

/** The files by relative path; `scaffoldPackageJson` is init's package.json, which gains the SDK. */
export function importedFiles(
  name: string,
  pascal: string,
  secrets: readonly string[],
  scaffoldPackageJson: string,
  importCommand: string,
): Map<string, string> {
  const pkg = JSON.parse(scaffoldPackageJson) as { dependencies: Record<string, string> };
  pkg.dependencies["@modelcontextprotocol/sdk"] = sdkVersion();
  return new Map([
    ["src/main.ts", mainText(name, pascal)],
    ["test/provider.test.ts", testText(name)],
    ["dev-config.json", "{}\n"],
    ["README.md", readme(name, importCommand)],
    ["kernel/agent.hcl", agentHcl(name, secrets)],
    ["package.json", `${JSON.stringify(pkg, null, 2)}\n`],
  ]);
}
