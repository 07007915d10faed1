// The plugin's rooms (docs/plugin.md, pipeline and rooms): model/ resolves descriptors and options
// and knows nothing of printing; emit/ reads only the model and prints through protoplugin (the
// types through json-schema-to-typescript's compile()); the entry at plugin/'s root joins them.
// Every file's imports are held to its room's doors.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { it } from "node:test";
import { repoRoot } from "../support/buf.js";

const pluginRoot = path.join(repoRoot, "plugin");

/** The module specifiers a TypeScript file imports (static imports and re-exports). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  return [...text.matchAll(/^(?:import|export)\s[^;]*?\sfrom\s+"([^"]+)"/gms)].map((m) => m[1] ?? "");
}

function filesIn(room: string): string[] {
  return readdirSync(path.join(pluginRoot, room))
    .filter((name) => name.endsWith(".ts"))
    .map((name) => path.join(pluginRoot, room, name));
}

it("model/ imports neither emit/ nor protoplugin, nor the plugin's entry", () => {
  const wrong: string[] = [];
  for (const file of filesIn("model")) {
    for (const spec of importsOf(file)) {
      if (spec.startsWith("../") || spec.startsWith("@bufbuild/protoplugin"))
        wrong.push(`${path.relative(repoRoot, file)} imports ${spec}`);
    }
  }
  assert.deepEqual(wrong, []);
});

it("emit/ reads only the model (no descriptors, no option extensions) and prints through protoplugin and json-schema-to-typescript", () => {
  const allowed = (spec: string): boolean =>
    spec.startsWith("./") ||
    spec.startsWith("../model/") ||
    // The plugin's own parameters (where the generated code imports the runtime from).
    spec === "../plugin-options.js" ||
    spec === "@bufbuild/protoplugin" ||
    // The types' declarations (compiled-types.ts).
    spec === "json-schema-to-typescript";
  const wrong: string[] = [];
  for (const file of filesIn("emit")) {
    for (const spec of importsOf(file))
      if (!allowed(spec)) wrong.push(`${path.relative(repoRoot, file)} imports ${spec}`);
  }
  assert.deepEqual(wrong, []);
  assert.ok(filesIn("emit").length >= 5 && filesIn("model").length >= 10, "the rooms hold the plugin's files");
});

it("no plugin file imports a package's internals (dist/ paths)", () => {
  const wrong: string[] = [];
  for (const file of [...filesIn("."), ...filesIn("model"), ...filesIn("emit")]) {
    for (const spec of importsOf(file))
      if (/\/dist\//.test(spec)) wrong.push(`${path.relative(repoRoot, file)} imports ${spec}`);
  }
  assert.deepEqual(wrong, []);
});
