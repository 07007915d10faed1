// `target=js+dts` is the TypeScript target split in two: the declarations give every export the
// type the TypeScript module has, the JavaScript does what the TypeScript module does. Checked on
// the committed goldens (golden/ against golden/js-dts/), which good-protos.test.ts keeps fresh.
import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, it } from "node:test";
import ts from "typescript";
import { repoRoot } from "../support/buf.js";
import { goldenProtos } from "./support/golden-targets.js";
import { buildFiles, generate } from "./support/plugin-request.js";

const golden = path.join(import.meta.dirname, "golden");
const jsDts = path.join(golden, "js-dts");
const modules = goldenProtos.map((proto) => proto.replace(/\.proto$/, "_tool"));

function projectOptions(): ts.CompilerOptions {
  const config = ts.getParsedCommandLineOfConfigFile(
    path.join(repoRoot, "tsconfig.json"),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
  );
  assert.ok(config);
  return { ...config.options, noEmit: true };
}

function format(diagnostics: readonly ts.Diagnostic[]): string {
  return ts.formatDiagnostics(diagnostics, {
    getCanonicalFileName: (f) => f,
    getCurrentDirectory: () => repoRoot,
    getNewLine: () => "\n",
  });
}

/** The exports of a module: which are values, which are types. */
function exportsOf(checker: ts.TypeChecker, file: ts.SourceFile): Map<string, { value: boolean; type: boolean }> {
  const moduleSymbol = checker.getSymbolAtLocation(file);
  assert.ok(moduleSymbol, `${file.fileName} is not a module`);
  const out = new Map<string, { value: boolean; type: boolean }>();
  for (const symbol of checker.getExportsOfModule(moduleSymbol)) {
    const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
    out.set(symbol.name, {
      value: (target.flags & ts.SymbolFlags.Value) !== 0,
      type: (target.flags & ts.SymbolFlags.Type) !== 0,
    });
  }
  return out;
}

describe("target=js+dts", () => {
  it("declares every export of the TypeScript target with the same type", () => {
    const options = projectOptions();
    const program = ts.createProgram({
      rootNames: modules.flatMap((m) => [path.join(golden, `${m}.ts`), path.join(jsDts, `${m}.d.ts`)]),
      options,
    });
    const checker = program.getTypeChecker();
    const lines = [
      "type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;",
      "type Assert<T extends true> = T;",
    ];
    for (const m of modules) {
      const fromTs = exportsOf(checker, program.getSourceFile(path.join(golden, `${m}.ts`)) as ts.SourceFile);
      const fromDts = exportsOf(checker, program.getSourceFile(path.join(jsDts, `${m}.d.ts`)) as ts.SourceFile);
      assert.deepEqual(
        [...fromDts.keys()].sort(),
        [...fromTs.keys()].sort(),
        `${m}: the declarations export other names`,
      );
      lines.push(`import type * as ts_${m} from "./${m}.js";`, `import type * as dts_${m} from "./js-dts/${m}.js";`);
      for (const [name, kind] of fromTs) {
        assert.deepEqual(fromDts.get(name), kind, `${m}.${name} is a value or type in one target only`);
        const [a, b] = kind.value
          ? [`typeof ts_${m}.${name}`, `typeof dts_${m}.${name}`]
          : [`ts_${m}.${name}`, `dts_${m}.${name}`];
        lines.push(`export type ${m}_${name} = Assert<Same<${a}, ${b}>>;`);
      }
    }
    // The assertions, compiled beside the goldens so that their relative imports resolve.
    const probe = path.join(golden, "__same_types.ts");
    const host = ts.createCompilerHost(options);
    const read = host.getSourceFile.bind(host);
    host.getSourceFile = (fileName, version, onError, create) =>
      path.resolve(fileName) === probe
        ? ts.createSourceFile(fileName, lines.join("\n"), version)
        : read(fileName, version, onError, create);
    const checked = ts.createProgram({ rootNames: [probe], options, host, oldProgram: program });
    const diagnostics = ts
      .getPreEmitDiagnostics(checked)
      .filter((d) => d.file && path.resolve(d.file.fileName) === probe);
    assert.equal(diagnostics.length, 0, `${format(diagnostics)}\n${lines.join("\n")}`);
  });

  it("writes declarations that type-check without skipLibCheck", () => {
    const files = readdirSync(jsDts)
      .filter((f) => f.endsWith(".d.ts"))
      .map((f) => path.join(jsDts, f));
    const program = ts.createProgram({ rootNames: files, options: { ...projectOptions(), skipLibCheck: false } });
    const diagnostics = ts
      .getPreEmitDiagnostics(program)
      .filter((d) => d.file && files.includes(path.resolve(d.file.fileName)));
    assert.equal(diagnostics.length, 0, format(diagnostics));
  });

  it("writes JavaScript that does what the TypeScript target does", async () => {
    const samples: unknown[] = [
      {},
      { query: "q", offset: 1, format: "json", since: "2024-05-01T12:00:00Z", note: "n", nickname: "x" },
      { query: 1, format: "xml", extra: true },
      { records: [{ id: "a", raw: "", origin: { source: "s" } }], ran_at: "t" },
      { count: 2, source: { source: 3 } },
      { key: "k", parts: [{ name: "c" }] },
      { api_key: "k", endpoint: { url: "u", verify_tls: "no" }, headers: { a: 1 } },
      [],
      null,
    ];
    // The hook points each golden's proto lists (supported_hook_points): the factory refuses hooks that differ.
    const hookPoints: { readonly [module: string]: readonly string[] } = {
      mapping_tool: ["pre-tool-call", "post-tool-call"],
      names_tool: ["pre-tool-call"],
    };
    for (const m of modules) {
      const hooks = Object.fromEntries((hookPoints[m] ?? []).map((point) => [point, { observe: async () => {} }]));
      const handlers = new Proxy(
        { render: {}, hooks },
        { get: (target, name) => (name === "render" || name === "hooks" ? target[name] : async () => ({})) },
      );
      const fromTs = (await import(pathToFileURL(path.join(golden, `${m}.ts`)).href)) as Record<string, unknown>;
      const fromJs = (await import(pathToFileURL(path.join(jsDts, `${m}.js`)).href)) as Record<string, unknown>;
      assert.deepEqual(
        Object.keys(fromJs).sort(),
        Object.keys(fromTs).sort(),
        `${m}: the JavaScript exports other names`,
      );
      for (const [name, value] of Object.entries(fromTs)) {
        const other = fromJs[name];
        if (/^validate/.test(name)) {
          for (const sample of samples)
            assert.deepEqual(
              (other as (v: unknown) => unknown)(sample),
              (value as (v: unknown) => unknown)(sample),
              `${m}.${name}(${JSON.stringify(sample)})`,
            );
        } else if (/ToolSchemas$/.test(name)) {
          assert.deepEqual((other as () => unknown)(), (value as () => unknown)(), `${m}.${name}()`);
        } else if (/^create\w+Provider$/.test(name)) {
          const [a, b] = [
            (value as (h: unknown) => { tools: { declaration: unknown }[] })(handlers),
            (other as (h: unknown) => { tools: { declaration: unknown }[] })(handlers),
          ];
          assert.deepEqual(
            { ...b, tools: b.tools.map((t) => t.declaration), config: undefined },
            { ...a, tools: a.tools.map((t) => t.declaration), config: undefined },
            `${m}.${name}()`,
          );
        } else if (/Config$/.test(name)) {
          const [a, b] = [
            value as { attributes: unknown; decode: (v: unknown) => unknown },
            other as { attributes: unknown; decode: (v: unknown) => unknown },
          ];
          assert.deepEqual(b.attributes, a.attributes, `${m}.${name}.attributes`);
          for (const sample of samples.filter((s) => typeof s === "object" && s !== null && !Array.isArray(s)))
            assert.deepEqual(b.decode(sample), a.decode(sample), `${m}.${name}.decode(${JSON.stringify(sample)})`);
        } else if (/Tool$/.test(name)) {
          assert.deepEqual(
            (other as { declaration: unknown }).declaration,
            (value as { declaration: unknown }).declaration,
            `${m}.${name}`,
          );
        } else {
          assert.deepEqual(other, value, `${m}.${name}`);
        }
      }
    }
  });

  it("refuses CommonJS output: the runtime is an ES module", async () => {
    const files = buildFiles(".", path.join(import.meta.dirname, "protos"));
    await assert.rejects(
      () => generate(files, ["no_timeout.proto"], "target=js,js_import_style=legacy_commonjs"),
      /^Error: invalid option "js_import_style=legacy_commonjs": the harness-tool runtime is an ES module/,
    );
  });
});
