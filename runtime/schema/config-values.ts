/**
 * A config value decoded against its attributes (config.v1.ConfigAttribute, as the provider rules
 * read them): every missing required attribute, wrong type and unknown attribute is a violation;
 * absent attributes take their default. defineConfig's decoder, and the rule that a default decodes
 * as its own attribute's type.
 */
import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import type { ConfigAttributeRuleInput } from "./provider-rules.js";
import type { ValueViolation } from "./value-violation.js";

/** An attribute as the decoder reads it: the rules' input, with whether it is required. */
export interface DecodedAttribute extends ConfigAttributeRuleInput {
  readonly required?: boolean;
  readonly objectAttributes?: readonly DecodedAttribute[];
}

function pointer(base: string, name: string): string {
  return `${base}/${name.replace(/~/g, "~0").replace(/\//g, "~1")}`;
}

function describe(value: JsonValue): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

export function decodeValue(
  a: DecodedAttribute,
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
  attributes: readonly DecodedAttribute[],
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
  attributes: readonly DecodedAttribute[],
  value: JsonObject,
): { ok: true; value: JsonObject } | { ok: false; violations: readonly ValueViolation[] } {
  const violations: ValueViolation[] = [];
  const decoded = decodeObject(attributes, value, "", violations);
  return violations.length === 0 ? { ok: true, value: decoded } : { ok: false, violations };
}
