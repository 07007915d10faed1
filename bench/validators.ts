/**
 * Suite `validators`: what the generated validators cost, over the examples' generated schema
 * modules. Per call: every input and output validator of every example, each given a conforming
 * value and a value with a wrong type in every field, synthesized from its schema constant. Module
 * load: a fresh Node process importing each schema module (source through tsx, as tests load it).
 * Size: the bytes of the generated schema modules.
 */
import { execFileSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { repoRoot } from "./bench-workspace.js";
import { median } from "./measure.js";
import { absolute, formatMs } from "./report.js";
import type { Suite, SuiteContext } from "./suite.js";
import type { JsonSchema } from "../runtime/schema/json-schema.js";
import { validatorFor } from "../runtime/schema/validate-value.js";
import type { ValueValidator } from "../runtime/schema/value-violation.js";

/** The generated schema modules of the examples (TypeScript target). */
export function exampleSchemaModules(): string[] {
  const out: string[] = [];
  const examples = path.join(repoRoot, "examples");
  for (const entry of readdirSync(examples, { recursive: true, withFileTypes: true })) {
    if (entry.isFile() && entry.name.endsWith("_tool_schemas.ts")) out.push(path.join(entry.parentPath, entry.name));
  }
  return out.sort();
}

/** A value that conforms to `schema`: every property present, two items per array. */
function conforming(schema: JsonSchema): unknown {
  switch (schema.type) {
    case "string":
      return schema.enum?.[0] ?? "text";
    case "number":
      return 3;
    case "boolean":
      return true;
    case "array":
      return [conforming(schema.items), conforming(schema.items)];
    case "object":
      return Object.fromEntries(Object.entries(schema.properties).map(([name, child]) => [name, conforming(child)]));
  }
}

/** A value with the wrong JSON type in every leaf, and an unknown property in every object. */
function violating(schema: JsonSchema): unknown {
  switch (schema.type) {
    case "string":
      return 7;
    case "number":
    case "boolean":
      return "text";
    case "array":
      return [violating(schema.items)];
    case "object":
      return {
        ...Object.fromEntries(Object.entries(schema.properties).map(([name, child]) => [name, violating(child)])),
        unknown_field: 1,
      };
  }
}

interface Case {
  readonly validate: ValueValidator;
  readonly value: unknown;
}

/** Every validator of the examples paired with its schema constant, each with both values. */
async function cases(): Promise<{ conforming: Case[]; violating: Case[]; runtime: Case[] }> {
  const good: Case[] = [];
  const bad: Case[] = [];
  const runtime: Case[] = [];
  for (const file of exampleSchemaModules()) {
    const mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
    for (const [name, value] of Object.entries(mod)) {
      const m = /^validate(.*)(Input|Output)$/.exec(name);
      if (!m || typeof value !== "function") continue;
      const schemaName = Object.keys(mod).find((k) => k.toLowerCase() === `${m[1]}${m[2]}Schema`.toLowerCase());
      if (!schemaName) continue;
      const schema = mod[schemaName] as JsonSchema;
      good.push({ validate: value as ValueValidator, value: conforming(schema) });
      bad.push({ validate: value as ValueValidator, value: violating(schema) });
      runtime.push({ validate: validatorFor(schema), value: conforming(schema) });
    }
  }
  return { conforming: good, violating: bad, runtime };
}

/** Nanoseconds per validator call over `list`, the median of `rounds` timed rounds. */
function perCallNs(list: readonly Case[], rounds: number, callsPerRound: number): number {
  const times: number[] = [];
  let sink = 0;
  for (let r = 0; r < rounds + 1; r++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < callsPerRound; i++) {
      const c = list[i % list.length] as Case;
      sink += c.validate(c.value).length;
    }
    const ns = Number(process.hrtime.bigint() - start) / callsPerRound;
    if (r > 0) times.push(ns); // the first round warms up
  }
  if (sink < 0) throw new Error("unreachable");
  return median(times);
}

/** Milliseconds for a fresh Node, harness-tool already loaded, to import every schema module; median. */
function loadMs(files: readonly string[], rounds: number): number {
  const tsx = path.join(repoRoot, "node_modules/tsx/dist/loader.mjs");
  const imports = files.map((f) => `await import(${JSON.stringify(pathToFileURL(f).href)});`).join("");
  // harness-tool's own entry first, so the figure is the schema modules alone.
  const code = `await import("harness-tool"); const t = performance.now();${imports} console.log(performance.now() - t);`;
  const times: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const out = execFileSync(
      process.execPath,
      ["--conditions=harness-tool-source", "--import", pathToFileURL(tsx).href, "--input-type=module", "-e", code],
      {
        cwd: repoRoot,
        encoding: "utf8",
      },
    );
    times.push(Number(out.trim()));
  }
  return median(times);
}

export const validatorsSuite: Suite = {
  id: "validators",
  title: "Generated validators: per call, module load, size",
  async run(context: SuiteContext) {
    const files = exampleSchemaModules();
    const { conforming: good, violating: bad, runtime } = await cases();
    const rounds = context.runs ?? (context.quick ? 3 : 9);
    const calls = context.quick ? 20_000 : 200_000;
    context.log(`validators: ${good.length} validators over ${files.length} schema modules`);
    const goodNs = perCallNs(good, rounds, calls);
    const badNs = perCallNs(bad, rounds, calls);
    const runtimeNs = perCallNs(runtime, rounds, calls);
    const load = loadMs(files, context.quick ? 3 : rounds);
    const bytes = files.reduce((sum, f) => sum + statSync(f).size, 0);
    return {
      id: "validators",
      title: this.title,
      method: [
        `${good.length} validators (every input and output of the ${files.length} examples' generated schema modules), called round-robin; ${rounds} timed rounds of ${calls} calls each after one warm-up round, median.`,
        "Conforming values have every property and two items per array; violating ones a wrong JSON type in every leaf and an unknown property in every object.",
        "Module load: a fresh Node (tsx loader, source condition) importing harness-tool, then timing the import of every schema module; median.",
      ],
      figures: [
        absolute("per call, conforming value", `${goodNs.toFixed(0)} ns`),
        absolute("per call, violating value", `${badNs.toFixed(0)} ns`),
        absolute("per call, conforming value, validatorFor(schema constant)", `${runtimeNs.toFixed(0)} ns`),
        absolute("load of the schema modules", formatMs(load)),
        absolute("generated schema modules", `${bytes} bytes`, undefined, `${files.length} files`),
      ],
      notes: [],
    };
  },
};
