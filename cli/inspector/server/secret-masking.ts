/**
 * The inspector's redaction: the runtime's rules (the same marker, the same forms of a secret, the
 * same walk of sensitive attributes), applied to everything the inspector shows. The provider's
 * runtime already redacts what it sends; this is the second line, for a provider that does not use
 * it or has a bug, and for the config the inspector itself holds.
 */
import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import { AttrType, type ConfigAttribute } from "harness-tool/generated/pluggableharness/config/v1/config_pb.js";
import type { ConfigAttributeDeclaration, ConfigAttributeTypeName } from "harness-tool";
// The runtime's own redaction rules, through the entry the runtime keeps for this use.
import { collectSecrets, createRedactor, redactionMarker, type SecretRedactor } from "harness-tool/redaction";
import type { ConfigAttributeView } from "../protocol/page-protocol.js";

export { redactionMarker };

const typeNames: { readonly [type: number]: ConfigAttributeTypeName } = {
  [AttrType.STRING]: "string",
  [AttrType.NUMBER]: "number",
  [AttrType.BOOL]: "bool",
  [AttrType.LIST_STRING]: "list_string",
  [AttrType.LIST_NUMBER]: "list_number",
  [AttrType.MAP_STRING]: "map_string",
  [AttrType.OBJECT]: "object",
};

/** The wire ConfigSchema's attributes in the runtime's declaration form (what collectSecrets walks). */
export function configAttributesFromWire(attributes: readonly ConfigAttribute[]): ConfigAttributeDeclaration[] {
  return attributes.map((a) => ({
    name: a.name,
    type: typeNames[a.type] ?? "string",
    required: a.required,
    sensitive: a.sensitive,
    description: a.description,
    ...(a.objectAttributes.length > 0 ? { objectAttributes: configAttributesFromWire(a.objectAttributes) } : {}),
    ...(a.defaultJson !== undefined ? { defaultJson: a.defaultJson } : {}),
  }));
}

/** The attributes as the Configure form draws them. */
export function configAttributeViews(attributes: readonly ConfigAttributeDeclaration[]): ConfigAttributeView[] {
  return attributes.map((a) => ({
    name: a.name,
    type: a.type,
    required: a.required,
    sensitive: a.sensitive,
    description: a.description,
    ...(a.objectAttributes ? { objectAttributes: configAttributeViews(a.objectAttributes) } : {}),
    ...(a.defaultJson !== undefined ? { defaultJson: a.defaultJson } : {}),
  }));
}

/**
 * The config with every sensitive attribute's value (nested ones too) replaced by the marker, whole:
 * a list or map of secrets shows as one marker, so not even their number is shown.
 */
export function maskConfig(attributes: readonly ConfigAttributeDeclaration[], config: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(config)) {
    const attribute = attributes.find((a) => a.name === key);
    if (attribute?.sensitive) out[key] = redactionMarker;
    else if (attribute?.type === "object" && attribute.objectAttributes && isObject(value))
      out[key] = maskConfig(attribute.objectAttributes, value);
    else out[key] = value;
  }
  return out;
}

/** Names (dotted for nested ones) of the sensitive attributes that hold a value in `config`. */
export function secretsSet(
  attributes: readonly ConfigAttributeDeclaration[],
  config: JsonObject,
  prefix = "",
): string[] {
  const out: string[] = [];
  for (const a of attributes) {
    if (!Object.hasOwn(config, a.name)) continue;
    const value = config[a.name];
    if (a.sensitive) out.push(prefix + a.name);
    else if (a.type === "object" && a.objectAttributes && isObject(value))
      out.push(...secretsSet(a.objectAttributes, value, `${prefix}${a.name}.`));
  }
  return out;
}

/**
 * Every secret the inspector was ever given in this session. A secret stays redacted after the config
 * changes: the history still holds what the provider said while it had it.
 */
export class SecretKeeper {
  readonly #secrets = new Set<string>();
  #redactor: SecretRedactor = createRedactor([]);

  /** Adds the sensitive values of `config`. */
  remember(attributes: readonly ConfigAttributeDeclaration[], config: JsonValue): void {
    const before = this.#secrets.size;
    for (const secret of collectSecrets(attributes, config)) this.#secrets.add(secret);
    if (this.#secrets.size !== before) this.#redactor = createRedactor(this.#secrets);
  }

  /** The redactor for everything the page receives. */
  get redactor(): SecretRedactor {
    return this.#redactor;
  }

  /** A JSON-like value (plain objects, arrays, strings...) with every secret replaced. */
  json<T>(value: T): T {
    return this.#redactor.deep(value);
  }
}

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
