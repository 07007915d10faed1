/**
 * The Configure struct of a served provider, from a JSON config file and the environment, by the
 * kernel's rule for agent.hcl: a sensitive attribute's value comes only from the environment. In
 * the file it is written `{"env": "NAME"}` (agent.hcl's `env("NAME")`); a literal value there is
 * refused, and so is a variable that is not set. Any other attribute may use the same form.
 */
import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import {
  AttrType,
  type ConfigAttribute,
  type ConfigSchema,
} from "harness-tool/generated/pluggableharness/config/v1/config_pb.js";
import { UsageError } from "../../terminal/usage-error.js";

/** The variable `{"env": "NAME"}` names, else undefined. */
function envReference(value: JsonValue | undefined): string | undefined {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return undefined;
  const keys = Object.keys(value);
  const name = value["env"];
  return keys.length === 1 && typeof name === "string" ? name : undefined;
}

/** One attribute's value with its `{"env": …}` read from `env`. */
function resolveAttribute(
  attribute: ConfigAttribute,
  value: JsonValue,
  where: string,
  env: NodeJS.ProcessEnv,
): JsonValue {
  const variable = envReference(value);
  if (variable !== undefined && attribute.type !== AttrType.OBJECT) {
    const set = env[variable];
    if (set === undefined)
      throw new UsageError(`${where} reads the environment variable ${variable}, which is not set (export it)`);
    return attribute.type === AttrType.STRING || attribute.sensitive ? set : parseEnvValue(set, variable);
  }
  if (attribute.sensitive)
    throw new UsageError(
      `${where} is sensitive: it comes only from the environment, write {"env": "${suggestedVariable(where)}"} and export that variable`,
    );
  if (attribute.type === AttrType.OBJECT && value !== null && typeof value === "object" && !Array.isArray(value))
    return resolveAttributes(attribute.objectAttributes, value, `${where}.`, env);
  return value;
}

/** A non-string attribute's variable as JSON (`8080`, `true`, `["a"]`), else the text itself. */
function parseEnvValue(text: string, variable: string): JsonValue {
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    throw new UsageError(`the environment variable ${variable} must hold JSON for a non-string attribute, not ${text}`);
  }
}

/** `api.token` → `API_TOKEN`. */
function suggestedVariable(where: string): string {
  return where.toUpperCase().replace(/[^A-Z0-9]+/g, "_");
}

function resolveAttributes(
  attributes: readonly ConfigAttribute[],
  values: JsonObject,
  prefix: string,
  env: NodeJS.ProcessEnv,
): JsonObject {
  const out: JsonObject = {};
  for (const [name, value] of Object.entries(values)) {
    const attribute = attributes.find((a) => a.name === name);
    // An attribute the provider does not declare is left to Configure to refuse.
    out[name] = attribute === undefined ? value : resolveAttribute(attribute, value, `${prefix}${name}`, env);
  }
  return out;
}

/**
 * The Configure struct: `file`'s values with every `{"env": "NAME"}` replaced by the variable's
 * value; throws a UsageError naming the attribute for a sensitive literal or an unset variable.
 */
export function serveConfig(
  schema: ConfigSchema | undefined,
  file: JsonObject,
  env: NodeJS.ProcessEnv = process.env,
): JsonObject {
  return resolveAttributes(schema?.attributes ?? [], file, "", env);
}
