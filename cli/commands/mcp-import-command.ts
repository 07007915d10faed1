/**
 * `harness-tool mcp import <dir> -- <server command...>`: an MCP server's tools as a provider
 * repository (cli/mcp/import). Run again on the same directory, it follows the server: the proto and
 * mcp/imported.json are rewritten, each tool's classification kept, and the changes are reported as
 * `diff` reports them.
 */
import path from "node:path";
import { type PackageSpecs, packageSpecs, PackageSourceError } from "../templates/package-sources.js";
import { packageVersion } from "../templates/cli-package.js";
import { terminalWidth } from "../terminal/terminal-width.js";
import { UsageError } from "../terminal/usage-error.js";
import { defineCommand } from "./command-definition.js";
import { renderChangesTable } from "./diff-command.js";
import { defaultPackageSource } from "./init-command.js";

const namePattern = /^[a-z][a-z0-9_]*$/;
const envPattern = /^[A-Za-z_][A-Za-z0-9_]*$/;

function parseEnv(entries: readonly string[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const entry of entries) {
    const equals = entry.indexOf("=");
    const name = equals < 0 ? entry : entry.slice(0, equals);
    if (equals < 0 || !envPattern.test(name))
      throw new UsageError(`--env ${entry}: write NAME=value (a secret goes in --secret NAME instead)`);
    env[name] = entry.slice(equals + 1);
  }
  return env;
}

function quoted(arg: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, "'\\''")}'`;
}

/** The command line of `harness-tool mcp import`. */
export const mcpImportCommandDefinition = defineCommand({
  name: "mcp import",
  summary: "write a provider that proxies an MCP server's tools, or update one",
  description: [
    "Starts the MCP server given after -- (or reaches the one at --url, over streamable HTTP), reads its tools and writes a provider repository (init's scaffold) whose proto declares each tool as an rpc: its description, its schemas mapped into the kernel's JSON-Schema subset, and kind/risk resource/high with the server's hints as comments. A tool the subset cannot express is reported and left out.",
    "Run again on the same directory, it rewrites the proto and mcp/imported.json, keeps each tool's classification block, and reports the changes as diff does.",
  ].join("\n\n"),
  positionals: [{ name: "dir" }],
  providerArgs: true,
  flags: {
    name: { type: "string", value: "snake_name", description: "the provider's name (default: from the directory)" },
    source: {
      type: "string",
      value: "address",
      description: "ProducerRef.source (default: github.com/you/provider-<name>)",
    },
    url: {
      type: "string",
      value: "url",
      description: "a server reached over streamable HTTP, instead of a command after --",
    },
    env: {
      type: "string",
      value: "NAME=value",
      multiple: true,
      description: "an environment variable for the server, written into the provider",
    },
    secret: {
      type: "string",
      value: "NAME",
      multiple: true,
      description: "a secret environment variable for the server: read here, never written (a sensitive attribute)",
    },
    "harness-tool": {
      type: "string",
      value: "spec",
      description: "where harness-tool's packages are installed from (as init's flag)",
    },
    timeout: {
      type: "string",
      value: "ms",
      default: "30000",
      description: "how long the server may take to list its tools",
    },
  },
  examples: [
    "harness-tool mcp import memory -- npx -y @modelcontextprotocol/server-memory",
    "harness-tool mcp import notes --secret NOTES_TOKEN -- node server.js",
    "harness-tool mcp import everything --url http://127.0.0.1:3001/mcp",
  ],
  run: async ({ values, positionals, providerArgs }, streams) => {
    const [command = "", ...args] = providerArgs;
    const url = values.url;
    if ((command === "") === (url === undefined))
      throw new UsageError(
        "name the MCP server's command after -- (e.g. -- npx -y @modelcontextprotocol/server-memory), or its --url",
      );
    if (url !== undefined && !/^https?:\/\//.test(url))
      throw new UsageError(`--url ${url}: an http:// or https:// URL`);
    const directory = path.resolve(positionals[0] as string);
    const name =
      values.name ??
      path
        .basename(directory)
        .replace(/^provider[-_]/, "")
        .replace(/-/g, "_")
        .toLowerCase();
    if (!namePattern.test(name))
      throw new UsageError(`provider name ${JSON.stringify(name)} is not snake_case: pass --name`);
    const timeoutMs = Number(values.timeout);
    if (!Number.isInteger(timeoutMs) || timeoutMs <= 0)
      throw new UsageError(`--timeout ${values.timeout}: a whole number of milliseconds`);
    for (const secret of values.secret)
      if (!envPattern.test(secret)) throw new UsageError(`--secret ${secret}: an environment variable's name`);
    let packages: PackageSpecs;
    try {
      packages = packageSpecs(values["harness-tool"] ?? defaultPackageSource(), packageVersion(), directory);
    } catch (e) {
      if (e instanceof PackageSourceError) throw new UsageError(`--harness-tool: ${e.message}`);
      throw e;
    }
    const { importProvider } = await import("../mcp/import/import-provider.js");
    const flags = [
      ...(values.name ? [`--name ${values.name}`] : []),
      ...values.secret.map((s) => `--secret ${s}`),
      ...values.env.map((entry) => `--env ${quoted(entry)}`),
    ];
    const report = await importProvider({
      directory,
      name,
      source: values.source ?? `github.com/you/provider-${name.replace(/_/g, "-")}`,
      server: { url, command, args, env: parseEnv(values.env) },
      secrets: values.secret,
      packages,
      timeoutMs,
      importCommand: [
        "harness-tool mcp import",
        quoted(positionals[0] as string),
        ...flags,
        ...(url !== undefined ? [`--url ${quoted(url)}`] : ["--", ...providerArgs.map(quoted)]),
      ].join(" "),
    });
    const tools = report.plan.tools.map((t) => t.name);
    streams.out.write(
      `${report.created ? "imported" : "re-imported"} ${tools.length} tool${tools.length === 1 ? "" : "s"} into ${directory}: ${tools.join(", ") || "(none)"}\n`,
    );
    for (const tool of report.plan.leftOut) streams.out.write(`left out ${tool.name}: ${tool.problems.join("; ")}\n`);
    if (!report.created) streams.out.write(renderChangesTable(report.changes, new Set(), terminalWidth(streams.out)));
    streams.out.write(
      report.created
        ? "\nNext: review each tool's classification in the proto, then\n  npm install\n  npm run generate && npm run build && npm run docs && npm test\n"
        : "\nNext: npm run generate && npm run build && npm run docs\n",
    );
    return 0;
  },
});
