/**
 * `harness-tool mcp import`'s work: read the server's tools, plan them, and write the provider.
 * A new directory gets init's scaffold (cli/templates) with the imported proto, mcp/imported.json
 * (what the proxy serves and Configure compares the live server with) and a main.ts on
 * `harness-tool/mcp`'s proxy, without init's docs/ (`npm run docs` writes the imported tools' pages); a directory imported before gets a new proto (each tool's
 * classification kept) and mcp/imported.json, and the report of what changed, as `diff` reports it.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { ImportedServer } from "harness-tool/mcp";
import { diffSurfaces, type SurfaceChange } from "../../diff/surface-diff.js";
import type { PackageSpecs } from "../../templates/package-sources.js";
import { pascalCase, scaffoldFiles } from "../../templates/scaffold-files.js";
import { type ImportPlan, planImport } from "./import-plan.js";
import { readServerTools, type ServerSpec } from "./read-server.js";
import { surfaceOf } from "./imported-surface-wire.js";
import { importedFiles } from "./imported-files.js";
import { classificationsOf, protoText } from "./write-proto.js";

/** What the command was given. */
export interface ImportSpec {
  readonly directory: string;
  readonly name: string;
  readonly source: string;
  readonly server: ServerSpec;
  /** Environment variables that are secrets: read from the import's environment, never written. */
  readonly secrets: readonly string[];
  readonly packages: PackageSpecs;
  readonly timeoutMs: number;
  /** The command line that re-imports, for the provider's drift refusal to name. */
  readonly importCommand: string;
}

/** What the import did. */
export interface ImportReport {
  readonly plan: ImportPlan;
  readonly created: boolean;
  /** The changes from the previous import (empty for a new provider). */
  readonly changes: readonly SurfaceChange[];
  readonly files: readonly string[];
}

const protoPath = (name: string) => `proto/${name}/v1/${name}.proto`;
export const importedJsonPath = "mcp/imported.json";

/** Reads the server and writes (or updates) the provider. */
export async function importProvider(spec: ImportSpec): Promise<ImportReport> {
  const env = { ...spec.server.env };
  for (const name of spec.secrets) if (process.env[name] !== undefined) env[name] = process.env[name] as string;
  const live = await readServerTools({ ...spec.server, env }, spec.timeoutMs);
  const pascal = pascalCase(spec.name);
  const plan = planImport(live, [`${pascal}Config`, `${pascal}Service`]);
  const proto = path.join(spec.directory, protoPath(spec.name));
  const created = !existsSync(proto);
  const before = created ? "" : readFileSync(proto, "utf8");
  const kept = classificationsOf(before);
  const imported: ImportedServer = {
    command: spec.server.command,
    args: spec.server.args,
    ...(spec.server.url !== undefined ? { url: spec.server.url } : {}),
    env: spec.server.env,
    secrets: spec.secrets,
    importCommand: spec.importCommand,
    tools: plan.tools.map(({ rpc: _rpc, ...tool }) => tool),
  };
  const files = new Map<string, string>();
  if (created) {
    // init's docs describe its example tools: the imported tools' docs come from the build (npm run docs).
    for (const [file, text] of scaffoldFiles({
      name: spec.name,
      source: spec.source,
      examples: ["data_source"],
      packages: spec.packages,
      directory: spec.directory,
    }))
      if (!file.startsWith("docs/")) files.set(file, text);
    for (const [file, text] of importedFiles(
      spec.name,
      pascal,
      spec.secrets,
      files.get("package.json") ?? "{}",
      spec.importCommand,
    ))
      files.set(file, text);
  }
  const commandLine = spec.server.url ?? [spec.server.command, ...spec.server.args].join(" ");
  const nextProto = protoText({
    name: spec.name,
    pascal,
    source: spec.source,
    commandLine,
    url: spec.server.url,
    secrets: spec.secrets,
    tools: plan.tools,
    kept,
  });
  files.set(protoPath(spec.name), nextProto);
  files.set(importedJsonPath, `${JSON.stringify(imported, null, 2)}\n`);
  const previous = path.join(spec.directory, importedJsonPath);
  const changes =
    created || !existsSync(previous)
      ? []
      : diffSurfaces(
          surfaceOf(JSON.parse(readFileSync(previous, "utf8")) as ImportedServer, kept),
          surfaceOf(imported, classificationsOf(nextProto)),
        );
  for (const [file, text] of files) {
    mkdirSync(path.dirname(path.join(spec.directory, file)), { recursive: true });
    writeFileSync(path.join(spec.directory, file), text);
  }
  if (created) rmSync(path.join(spec.directory, "src/handlers.ts"), { force: true });
  return { plan, created, changes, files: [...files.keys()] };
}
