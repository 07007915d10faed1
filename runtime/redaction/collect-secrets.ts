/**
 * Which configuration values are secrets: the values of `sensitive` config attributes, wherever
 * they sit in the configuration. What happens to them is the exits' business
 * (runtime/service/calls/secret-exits.ts).
 */
import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import type { ConfigAttributeDeclaration } from "../provider/provider-definition.js";

/**
 * Secrets shorter than this are only replaced where a whole string equals them: replacing every
 * occurrence of "ab" inside unrelated text would destroy the output and still reveal where "ab" was.
 */
export const minimumSubstringSecretLength = 4;

/** Every leaf string (and number, as text) of a JSON value. */
function leaves(value: unknown, out: string[]): void {
  if (typeof value === "string") out.push(value);
  else if (typeof value === "number" && Number.isFinite(value)) out.push(String(value));
  else if (Array.isArray(value)) for (const v of value) leaves(v, out);
  else if (typeof value === "object" && value !== null) for (const v of Object.values(value)) leaves(v, out);
}

/**
 * The secret values in a configuration: every leaf of a `sensitive` attribute's value (lists, maps
 * and objects included), and the sensitive attributes nested in `object` attributes. Works on a
 * raw, not yet validated configuration too (wrong types are walked as they are).
 */
export function collectSecrets(
  attributes: readonly ConfigAttributeDeclaration[],
  config: JsonValue | undefined,
): string[] {
  const out: string[] = [];
  if (typeof config !== "object" || config === null || Array.isArray(config)) return out;
  const record = config as JsonObject;
  for (const attribute of attributes) {
    if (!Object.hasOwn(record, attribute.name)) continue;
    const value = record[attribute.name];
    if (attribute.sensitive) leaves(value, out);
    else if (attribute.type === "object" && attribute.objectAttributes)
      out.push(...collectSecrets(attribute.objectAttributes, value));
  }
  return out;
}
