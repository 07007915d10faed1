// The main entry, `harness-tool`, is what a provider author uses: its export list is pinned here, so
// that growing it is a decision (add the name below, and say why in the commit), not a side effect.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { it } from "node:test";
import ts from "typescript";
import { repoRoot } from "../support/buf.js";

const pinned = [
  "CallInfo",
  "CancelReport",
  "CheckedToolSpec",
  "ChildExit",
  "ConcurrencySpec",
  "ConfigAttributeDeclaration",
  "ConfigAttributeSpec",
  "ConfigAttributeTypeName",
  "ConfigDefinition",
  "ConfigureContext",
  "ConfigureHook",
  "ContextFor",
  "DataSourceToolSpec",
  "EmittedEvent",
  "ErasedToolSpec",
  "ExplicitToolBuilder",
  "HandlerFor",
  "HandlersFor",
  "HookCallInfo",
  "HookContext",
  "HookKernelCallbacks",
  "HookModeName",
  "HookModes",
  "HookPayloads",
  "HookPointName",
  "HookSubscription",
  "HookSubscriptions",
  "HookSubscriptionsFor",
  "HookTransformResults",
  "HookVerdict",
  "InteractiveSpec",
  "InteractiveTerminal",
  "InteractiveTool",
  "InteractiveToolDefinition",
  "InteractiveToolSpec",
  "JsonSchema",
  "JsonSchemaObject",
  "KernelCallbacks",
  "LogLevelName",
  "MutableHookPointName",
  "ObserveHook",
  "PreviewContext",
  "PreviewHandler",
  "PreviewsFor",
  "ProcessToolContext",
  "ProviderDefinition",
  "ProviderIdentity",
  "ProviderSpec",
  "RenderContext",
  "RenderHandler",
  "RenderTreeInit",
  "ResourceToolSpec",
  "SchemaFirstSpec",
  "ServeOptions",
  "SpawnToolOptions",
  "StreamingToolContext",
  "ToolContext",
  "ToolDefinition",
  "ToolDefinitionOf",
  "ToolError",
  "ToolErrorCategoryName",
  "ToolErrorOptions",
  "ToolHandler",
  "ToolImplementation",
  "ToolLogger",
  "ToolSpec",
  "ToolTraits",
  "ToolValidators",
  "TransformFor",
  "TransformHook",
  "ValueOfSchema",
  "ValueValidator",
  "ValueViolation",
  "VetoHook",
  "configError",
  "defineConfig",
  "defineProvider",
  "defineTool",
  "emptyConfig",
  "eventSchemaVersion",
  "interactiveTool",
  "isToolError",
  "renderTreeText",
  "serve",
];

/** The names runtime/index.ts exports, read from its export declarations. */
function mainEntryExports(): { names: string[]; starExports: number } {
  const file = path.join(repoRoot, "runtime/index.ts");
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest);
  const names: string[] = [];
  let starExports = 0;
  for (const statement of source.statements) {
    if (!ts.isExportDeclaration(statement)) continue;
    const clause = statement.exportClause;
    if (clause === undefined) starExports++;
    else if (ts.isNamedExports(clause)) names.push(...clause.elements.map((e) => e.name.text));
  }
  return { names: names.sort(), starExports };
}

it("the main entry exports exactly the pinned names, none by `export *`", (t) => {
  const { names, starExports } = mainEntryExports();
  t.diagnostic(`harness-tool's main entry exports ${names.length} names`);
  assert.equal(starExports, 0, "every name is listed: no export * in runtime/index.ts");
  assert.deepEqual(names, [...pinned].sort());
});

it("every subpath the package exports has its source, its declarations and its JavaScript named", () => {
  const pkg = JSON.parse(readFileSync(path.join(repoRoot, "runtime/package.json"), "utf8")) as {
    exports: { [subpath: string]: string | { [condition: string]: string } };
  };
  for (const [subpath, target] of Object.entries(pkg.exports)) {
    if (typeof target === "string" || subpath.includes("*")) continue;
    assert.deepEqual(Object.keys(target), ["harness-tool-source", "types", "default"], subpath);
    const source = target["harness-tool-source"] as string;
    assert.ok(existsSync(path.join(repoRoot, "runtime", source)), `${subpath}: ${source} exists`);
    const stem = source.replace(/^\.\//, "./dist/").replace(/\.ts$/, "");
    assert.equal(target["types"], `${stem}.d.ts`, subpath);
    assert.equal(target["default"], `${stem}.js`, subpath);
  }
});
