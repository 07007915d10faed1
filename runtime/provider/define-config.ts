/**
 * The interpreting Configure decoder for hand-written providers: checks a ConfigureRequest.config
 * (as JSON) against ConfigAttributeDeclaration[] and applies defaults. Generated providers pass a
 * compiled decoder instead.
 *
 * seed: Configure — MUST reject with a structured error on missing required fields rather than
 * deferring failure to the first Invoke.
 */
import type { ConfigAttributeDeclaration, ConfigDefinition } from "./provider-definition.js";
import type { ValueViolation } from "../schema/value-violation.js";
import { decodeConfig } from "../schema/config-values.js";
import { checkConfigAttributeDeclarations } from "../schema/provider-rules.js";

export { decodeConfig };

/**
 * Problems with the attribute declarations themselves (provider bugs), as readable lines: the
 * declaration rules, harness-tool/schema's, shared with the plugin, start-up and `check`.
 */
export function checkConfigAttributes(attributes: readonly ConfigAttributeDeclaration[]): string[] {
  return checkConfigAttributeDeclarations(attributes).map((v) => `${v.message} (${v.fix}) [${v.rule}]`);
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
