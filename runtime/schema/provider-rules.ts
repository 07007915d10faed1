/**
 * The provider-wide declaration rules, written once: the source address, the config attributes and
 * the slash commands. The plugin reports them against proto source locations, the runtime refuses
 * to start a provider that breaks one, and `harness-tool check` runs them on GetSchema and Describe.
 */

import type { JsonValue } from "@bufbuild/protobuf";
import { decodeValue } from "./config-values.js";
import type { ValueViolation } from "./value-violation.js";

/** The rules, by stable id. */
export type ProviderRule =
  | "source-forge-address"
  | "config-attribute-name"
  | "config-attribute-unique"
  | "config-attribute-type"
  | "config-object-attributes"
  | "config-object-attributes-only"
  | "config-default-json"
  | "config-default-type"
  | "config-sensitive-default"
  | "slash-command-name"
  | "slash-command-unique"
  | "slash-command-template";

/** What a violation is about: the source, a config attribute (by its path of names), or one slash command's field. */
export type ProviderSubject =
  | { readonly kind: "source" }
  | { readonly kind: "config"; readonly path: readonly string[] }
  | { readonly kind: "slash_command"; readonly index: number; readonly field: "name" | "template" };

/** One broken provider-wide rule. */
export interface ProviderViolation {
  readonly rule: ProviderRule;
  readonly severity: "error" | "warning";
  readonly subject: ProviderSubject;
  /** What is wrong, naming the values involved. */
  readonly message: string;
  /** How to fix it. */
  readonly fix: string;
}

/** The specification section each rule comes from, for reports. */
export const providerRuleSources: { readonly [R in ProviderRule]: string } = {
  "source-forge-address": "Describe: ProducerRef.source (a git-forge address)",
  "config-attribute-name": "GetSchema: ConfigAttribute.name (an HCL identifier)",
  "config-attribute-unique": "GetSchema: ConfigAttribute.name (unique within its object)",
  "config-attribute-type": "GetSchema: ConfigAttribute.type",
  "config-object-attributes": "GetSchema: ConfigAttribute.object_attributes (an object has attributes)",
  "config-object-attributes-only": "GetSchema: ConfigAttribute.object_attributes (objects only)",
  "config-default-json": "GetSchema: ConfigAttribute.default_json (JSON)",
  "config-default-type": "GetSchema: ConfigAttribute.default_json (of the attribute's type)",
  "config-sensitive-default": "GetSchema: ConfigAttribute.sensitive (no advertised default)",
  "slash-command-name": "GetSchema: slash_commands name (a bare command word)",
  "slash-command-unique": "GetSchema: slash_commands name (unique)",
  "slash-command-template": "GetSchema: slash_commands template (non-empty)",
};

/** The config attribute types agent.hcl knows (config.v1.AttrType), as the runtime names them. */
export const configAttributeTypes = [
  "string",
  "number",
  "bool",
  "list_string",
  "list_number",
  "map_string",
  "object",
] as const;

/** What the config rules read of an attribute; the runtime's ConfigAttributeDeclaration is one. */
export interface ConfigAttributeRuleInput {
  readonly name: string;
  readonly type: string;
  readonly sensitive: boolean;
  readonly defaultJson?: string;
  readonly objectAttributes?: readonly ConfigAttributeRuleInput[];
}

/**
 * A git-forge address as agent.hcl's required_providers takes it: github.com or gitlab.com, then at
 * least an owner and a repository (gitlab.com's subgroups, or a folder, may follow).
 */
const forgeAddress = /^(github|gitlab)\.com(\/[A-Za-z0-9_.-]+){2,}$/;

/** A slash command's name as the operator types it after "/": one word, no slash, no spaces. */
const commandWord = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;

const hclIdentifier = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** The source is a forge address. */
export function checkSource(source: string): ProviderViolation[] {
  if (forgeAddress.test(source)) return [];
  return [
    {
      rule: "source-forge-address",
      severity: "error",
      subject: { kind: "source" },
      message: `source ${JSON.stringify(source)} is not a git-forge address`,
      fix: 'give the repository\'s address, e.g. "github.com/acme/provider-notes" or "gitlab.com/acme/notes"',
    },
  ];
}

/** Every rule the attributes of one config object break, nested objects included. */
export function checkConfigAttributeDeclarations(
  attributes: readonly ConfigAttributeRuleInput[],
  base: readonly string[] = [],
): ProviderViolation[] {
  const out: ProviderViolation[] = [];
  const seen = new Set<string>();
  for (const a of attributes) {
    const path = [...base, a.name];
    const where = `config attribute ${JSON.stringify(path.join("."))}`;
    const add = (rule: ProviderRule, message: string, fix: string): void => {
      out.push({ rule, severity: "error", subject: { kind: "config", path }, message: `${where}: ${message}`, fix });
    };
    if (!hclIdentifier.test(a.name))
      add(
        "config-attribute-name",
        "the name is not an HCL identifier",
        "use letters, digits and _, not starting with a digit",
      );
    if (seen.has(a.name)) add("config-attribute-unique", "declared more than once", "give each attribute its own name");
    seen.add(a.name);
    if (!(configAttributeTypes as readonly string[]).includes(a.type))
      add(
        "config-attribute-type",
        `unknown type ${JSON.stringify(a.type)}`,
        `use one of ${configAttributeTypes.join(", ")}`,
      );
    if (a.type === "object") {
      if ((a.objectAttributes ?? []).length === 0)
        add("config-object-attributes", "an object with no attributes", "declare its attributes, or remove it");
      else out.push(...checkConfigAttributeDeclarations(a.objectAttributes ?? [], path));
    } else if ((a.objectAttributes ?? []).length > 0) {
      add(
        "config-object-attributes-only",
        'objectAttributes are only for type "object"',
        'remove them, or make the type "object"',
      );
    }
    if (a.defaultJson !== undefined) {
      if (a.sensitive)
        add(
          "config-sensitive-default",
          "a sensitive attribute has a default, which GetSchema would advertise unredacted",
          "remove the default, and let the operator set it with env(...)",
        );
      const parsed = parseJson(a.defaultJson);
      if (parsed === undefined)
        add("config-default-json", "defaultJson is not valid JSON", 'give JSON text, e.g. "\\"eu\\""');
      else if ((configAttributeTypes as readonly string[]).includes(a.type)) {
        const problems: ValueViolation[] = [];
        decodeValue(a, parsed.value, "", problems);
        for (const p of problems)
          add(
            "config-default-type",
            `the default ${p.path ? `at ${p.path} ` : ""}${p.message}`,
            "give a default of its type",
          );
      }
    }
  }
  return out;
}

function parseJson(text: string): { value: JsonValue } | undefined {
  try {
    return { value: JSON.parse(text) as JsonValue };
  } catch {
    return undefined;
  }
}

/** Each slash command has a bare command word for a name, its own, and a template. */
export function checkSlashCommands(
  commands: readonly { readonly name: string; readonly template: string }[],
): ProviderViolation[] {
  const out: ProviderViolation[] = [];
  const seen = new Set<string>();
  for (const [index, command] of commands.entries()) {
    const name = JSON.stringify(command.name);
    if (!commandWord.test(command.name)) {
      out.push({
        rule: "slash-command-name",
        severity: "error",
        subject: { kind: "slash_command", index, field: "name" },
        message: `slash command ${name} is not a bare command word`,
        fix: `name it as typed after "/", one word of letters, digits, _ or -, e.g. ${JSON.stringify(suggestWord(command.name))}`,
      });
    } else if (seen.has(command.name)) {
      out.push({
        rule: "slash-command-unique",
        severity: "error",
        subject: { kind: "slash_command", index, field: "name" },
        message: `slash command ${name} is declared twice`,
        fix: "give each slash command its own name",
      });
    }
    seen.add(command.name);
    if (command.template.trim() === "") {
      out.push({
        rule: "slash-command-template",
        severity: "error",
        subject: { kind: "slash_command", index, field: "template" },
        message: `slash command ${name} has an empty template`,
        fix: "give the prompt it expands to",
      });
    }
  }
  return out;
}

function suggestWord(name: string): string {
  const word = name
    .replace(/^\/+/, "")
    .trim()
    .replace(/[^A-Za-z0-9_-]+/g, "_")
    .replace(/^[_-]+/, "");
  return word === "" ? "review" : word;
}

/** What the provider rules read of a provider. */
export interface ProviderRuleInput {
  readonly source: string;
  readonly configAttributes: readonly ConfigAttributeRuleInput[];
  readonly slashCommands: readonly { readonly name: string; readonly template: string }[];
}

/** Every provider-wide rule a provider breaks. */
export function checkProviderDeclaration(provider: ProviderRuleInput): ProviderViolation[] {
  return [
    ...checkSource(provider.source),
    ...checkConfigAttributeDeclarations(provider.configAttributes),
    ...checkSlashCommands(provider.slashCommands),
  ];
}

/** One line per violation: `provider: message (fix) [rule]`. */
export function formatProviderViolation(v: ProviderViolation): string {
  return `provider: ${v.message} (${v.fix}) [${v.rule}]`;
}
