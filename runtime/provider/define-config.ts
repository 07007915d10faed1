/**
 * The interpreting Configure decoder for hand-written providers: checks a ConfigureRequest.config
 * (as JSON) against ConfigAttributeDeclaration[] and applies defaults. Generated providers pass a
 * compiled decoder instead.
 *
 * seed: Configure — MUST reject with a structured error on missing required fields rather than
 * deferring failure to the first Invoke.
 */
import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import type { ConfigAttributeDeclaration, ConfigDefinition } from "./provider-definition.js";
import type { ValueViolation } from "../schema/value-violation.js";
import { checkConfigAttributeDeclarations } from "../schema/provider-rules.js";

function pointer(base: string, name: string): string {
  return `${base}/${name.replace(/~/g, "~0").replace(/\//g, "~1")}`;
}

function describe(value: JsonValue): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

/**
 * Problems with the attribute declarations themselves (provider bugs), as readable lines: the
 * declaration rules (harness-tool/schema's, shared with the plugin and `check`), then each default
 * that does not decode as its attribute's type.
 */
export function checkConfigAttributes(attributes: readonly ConfigAttributeDeclaration[]): string[] {
  const declared = checkConfigAttributeDeclarations(attributes);
  if (declared.length > 0) return declared.map((v) => `${v.message} (${v.fix}) [${v.rule}]`);
  return configDefaultProblems(attributes);
}

/** Each default that does not decode as its attribute's type, once the declarations hold. */
export function configDefaultProblems(attributes: readonly ConfigAttributeDeclaration[]): string[] {
  return checkConfigAttributeDeclarations(attributes).length > 0 ? [] : defaultProblems(attributes, "");
}

function defaultProblems(attributes: readonly ConfigAttributeDeclaration[], base: string): string[] {
  const out: string[] = [];
  for (const a of attributes) {
    if (a.type === "object") out.push(...defaultProblems(a.objectAttributes ?? [], `${base}${a.name}.`));
    if (a.defaultJson === undefined) continue;
    const problems: ValueViolation[] = [];
    decodeValue(a, JSON.parse(a.defaultJson) as JsonValue, "", problems);
    const where = `config attribute ${JSON.stringify(base + a.name)}`;
    for (const p of problems)
      out.push(
        `${where}: the default ${p.path ? `at ${p.path} ` : ""}${p.message} (give a default of its type) [config-default-type]`,
      );
  }
  return out;
}

function decodeValue(
  a: ConfigAttributeDeclaration,
  value: JsonValue,
  path: string,
  out: ValueViolation[],
): JsonValue | undefined {
  const wrong = (expected: string): undefined => {
    out.push({ path, message: `must be ${expected}, not ${describe(value)}` });
    return undefined;
  };
  switch (a.type) {
    case "string":
      return typeof value === "string" ? value : wrong("a string");
    case "number":
      return typeof value === "number" && Number.isFinite(value) ? value : wrong("a number");
    case "bool":
      return typeof value === "boolean" ? value : wrong("a bool");
    case "list_string":
    case "list_number": {
      const element = a.type === "list_string" ? "string" : "number";
      if (!Array.isArray(value)) return wrong(`a list of ${element}s`);
      value.forEach((v, i) => {
        if (element === "string" ? typeof v !== "string" : typeof v !== "number" || !Number.isFinite(v)) {
          out.push({ path: `${path}/${i}`, message: `must be a ${element}, not ${describe(v)}` });
        }
      });
      return value;
    }
    case "map_string": {
      if (typeof value !== "object" || value === null || Array.isArray(value)) return wrong("a map of strings");
      for (const [k, v] of Object.entries(value)) {
        if (typeof v !== "string")
          out.push({ path: pointer(path, k), message: `must be a string, not ${describe(v)}` });
      }
      return value;
    }
    case "object":
      if (typeof value !== "object" || value === null || Array.isArray(value)) return wrong("an object");
      return decodeObject(a.objectAttributes ?? [], value, path, out);
  }
}

function decodeObject(
  attributes: readonly ConfigAttributeDeclaration[],
  value: JsonObject,
  base: string,
  out: ValueViolation[],
): JsonObject {
  const result: JsonObject = {};
  const known = new Set<string>();
  for (const a of attributes) {
    known.add(a.name);
    const path = pointer(base, a.name);
    const raw = Object.hasOwn(value, a.name) ? value[a.name] : undefined;
    // HCL null means "not set": the default applies, and a required attribute is missing.
    if (raw === undefined || raw === null) {
      if (a.defaultJson !== undefined) result[a.name] = JSON.parse(a.defaultJson) as JsonValue;
      else if (a.required) out.push({ path, message: "is required" });
      continue;
    }
    const decoded = decodeValue(a, raw, path, out);
    if (decoded !== undefined) result[a.name] = decoded;
  }
  for (const name of Object.keys(value)) {
    if (!known.has(name)) out.push({ path: pointer(base, name), message: "is not a known attribute" });
  }
  return result;
}

/**
 * Decodes a configuration against its attributes: every missing required attribute, wrong type
 * and unknown attribute is a violation; absent attributes take their default.
 */
export function decodeConfig(
  attributes: readonly ConfigAttributeDeclaration[],
  value: JsonObject,
): { ok: true; value: JsonObject } | { ok: false; violations: readonly ValueViolation[] } {
  const violations: ValueViolation[] = [];
  const decoded = decodeObject(attributes, value, "", violations);
  return violations.length === 0 ? { ok: true, value: decoded } : { ok: false, violations };
}

/** One attribute as defineConfig takes it: `required` and `sensitive` default to false. */
export type ConfigAttributeSpec = Omit<
  ConfigAttributeDeclaration,
  "required" | "sensitive" | "description" | "objectAttributes"
> & {
  readonly required?: boolean;
  readonly sensitive?: boolean;
  readonly description?: string;
  readonly objectAttributes?: readonly ConfigAttributeSpec[];
};

function normalize(spec: ConfigAttributeSpec): ConfigAttributeDeclaration {
  return {
    name: spec.name,
    type: spec.type,
    required: spec.required ?? false,
    sensitive: spec.sensitive ?? false,
    description: spec.description ?? "",
    ...(spec.objectAttributes ? { objectAttributes: spec.objectAttributes.map(normalize) } : {}),
    ...(spec.defaultJson !== undefined ? { defaultJson: spec.defaultJson } : {}),
  };
}

/**
 * A hand-written provider's configuration, decoded by interpretation. State the decoded type; the
 * attributes are checked here, so a bad declaration throws when the provider is defined:
 *
 * ```ts
 * const config = defineConfig<{ root: string; api_key?: string }>([
 *   { name: "root", type: "string", required: true },
 *   { name: "api_key", type: "string", sensitive: true },
 * ]);
 * ```
 */
export function defineConfig<Config>(attributes: readonly ConfigAttributeSpec[]): ConfigDefinition<Config> {
  const declared = attributes.map(normalize);
  const problems = checkConfigAttributes(declared);
  if (problems.length > 0) throw new TypeError(`invalid configuration declaration:\n  ${problems.join("\n  ")}`);
  return {
    attributes: declared,
    decode: (value) =>
      decodeConfig(declared, value) as
        | { ok: true; value: Config }
        | { ok: false; violations: readonly ValueViolation[] },
  };
}
