/**
 * The kernel's configuration for one provider, written from what the provider declares: the
 * `required_providers` entry and the `provider "<name>" { … }` block of agent.hcl, decoded by the
 * kernel against the provider's ConfigSchema (its internal/config bridge), and the `dev_overrides`
 * entry of the per-user global config ($XDG_CONFIG_HOME/agent/config.hcl), which the kernel refuses
 * in agent.hcl. Every attribute comes with its description as a comment; a sensitive one is written
 * as `env("<NAME>_<ATTRIBUTE>")`, the only form the kernel accepts for it.
 */
import {
  AttrType,
  type ConfigAttribute,
  type ConfigSchema,
} from "harness-tool/generated/pluggableharness/config/v1/config_pb.js";

/** Who the provider is, as the lock file and agent.hcl name it. */
export interface KernelConfigTarget {
  /** The local name in required_providers and the label of the provider block, e.g. "notes". */
  readonly name: string;
  /** The registry source address, e.g. "github.com/acme/provider-notes". */
  readonly source: string;
  /** A version constraint in the kernel's (Terraform's) operators, e.g. "~> 0.1.0". */
  readonly version: string;
  readonly config: ConfigSchema | undefined;
  /** Absolute path of the local build dev_overrides points at. */
  readonly devPath: string;
}

/**
 * The constraint that accepts `version` and later patch releases of it: `~> 1.2.3`; a prerelease
 * or any other version exactly (`= 2.0.0-rc.1`: a prerelease matches only an exact constraint).
 */
export function patchConstraint(version: string): string {
  return /^\d+\.\d+\.\d+$/.test(version) ? `~> ${version}` : `= ${version}`;
}

/** The environment variable a sensitive attribute is read from: `NOTES_API_TOKEN`. */
export function secretVariable(...parts: readonly string[]): string {
  return parts
    .join("_")
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "");
}

/** The kernel's spelling of each attribute type in HCL: "list(string)". */
export const attrTypeText: Record<AttrType, string> = {
  [AttrType.UNSPECIFIED]: "unspecified",
  [AttrType.STRING]: "string",
  [AttrType.NUMBER]: "number",
  [AttrType.BOOL]: "bool",
  [AttrType.LIST_STRING]: "list(string)",
  [AttrType.LIST_NUMBER]: "list(number)",
  [AttrType.MAP_STRING]: "map(string)",
  [AttrType.OBJECT]: "object",
};

/** An HCL literal of the value a JSON default holds (strings quoted, lists and maps inline). */
function hclLiteral(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(hclLiteral).join(", ")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value).map(([key, v]) => `${JSON.stringify(key)} = ${hclLiteral(v)}`);
    return entries.length === 0 ? "{}" : `{ ${entries.join(", ")} }`;
  }
  // JSON's string escapes are HCL's, but "${" and "%{" start templates there.
  if (typeof value === "string") return JSON.stringify(value).replace(/([$%])\{/g, "$1$1{");
  return String(value);
}

/** The value an attribute without a default is written with: the empty value of its type. */
function placeholder(type: AttrType): string {
  switch (type) {
    case AttrType.STRING:
      return '""';
    case AttrType.NUMBER:
      return "0";
    case AttrType.BOOL:
      return "false";
    case AttrType.LIST_STRING:
    case AttrType.LIST_NUMBER:
      return "[]";
    default:
      return "{}";
  }
}

/** The default of `a` as an HCL literal, or undefined when it has none (or an unreadable one). */
export function defaultLiteral(a: ConfigAttribute): string | undefined {
  if (a.defaultJson === undefined) return undefined;
  try {
    return hclLiteral(JSON.parse(a.defaultJson));
  } catch {
    return undefined;
  }
}

/**
 * The lines of one attribute, indented by `indent`: its description and facts as comments, then
 * `name = value`. Required attributes are written; the others are commented out (an optional
 * sensitive one too: the kernel fails on an unset variable), with their default when they have
 * one, since leaving them out is the same as writing the default.
 */
function attributeLines(a: ConfigAttribute, indent: string, envPath: readonly string[]): string[] {
  const description = a.description.trim();
  const lines = description === "" ? [] : description.split("\n").map((line) => `${indent}# ${line}`.trimEnd());
  // A sensitive attribute's default is a value like any secret: never printed.
  const dflt = a.sensitive ? undefined : defaultLiteral(a);
  const facts = [attrTypeText[a.type], a.required ? "required" : "optional"];
  if (dflt !== undefined) facts.push(`default ${dflt}`);
  if (a.sensitive) facts.push('sensitive: exactly env("…"), never a literal');
  lines.push(`${indent}# ${facts.join(", ")}`);
  const written = a.required;
  const lead = written ? indent : `${indent}# `;
  if (a.sensitive) {
    lines.push(`${lead}${a.name} = env("${secretVariable(...envPath, a.name)}")`);
  } else if (a.type === AttrType.OBJECT && a.objectAttributes.length > 0 && dflt === undefined) {
    lines.push(`${lead}${a.name} = {`);
    for (const nested of a.objectAttributes) lines.push(...attributeLines(nested, `${lead}  `, [...envPath, a.name]));
    lines.push(`${lead}}`);
  } else {
    lines.push(`${lead}${a.name} = ${dflt ?? placeholder(a.type)}`);
  }
  return lines;
}

/** agent.hcl's part: the required_providers entry and the provider block. */
export function renderAgentConfig(target: KernelConfigTarget): string {
  const attributes = target.config?.attributes ?? [];
  const body = attributes.flatMap((a, i) => [...(i > 0 ? [""] : []), ...attributeLines(a, "  ", [target.name])]);
  return [
    `# agent.hcl: the ${target.name} provider. The kernel checks its lock file entry before launching it`,
    `# and decodes the provider block against the provider's ConfigSchema.`,
    "required_providers {",
    `  ${target.name} = {`,
    `    source  = ${hclLiteral(target.source)}`,
    `    version = ${hclLiteral(target.version)}`,
    "  }",
    "}",
    "",
    `provider ${hclLiteral(target.name)} {`,
    ...(body.length > 0 ? body : ["  # The provider declares no configuration attributes."]),
    "}",
    "",
  ].join("\n");
}

/** The global config's part: the dev_overrides entry that launches the local build. */
export function renderGlobalConfig(target: KernelConfigTarget): string {
  return [
    "# $XDG_CONFIG_HOME/agent/config.hcl (~/.config/agent/config.hcl), never agent.hcl: while this",
    `# entry is there, the kernel launches this local build for ${target.name} instead of the release`,
    "# required_providers names.",
    "dev_overrides {",
    `  ${target.name} = ${hclLiteral(target.devPath)}`,
    "}",
    "",
  ].join("\n");
}
