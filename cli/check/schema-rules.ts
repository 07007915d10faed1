/**
 * The rules about what the provider declares: Describe's producer, a GetSchema that answers the
 * same twice, and every ToolSchema invariant (the ones the plugin and the runtime enforce, written
 * once in harness-tool's schema module), checked on the wire form.
 */
import { equals } from "@bufbuild/protobuf";
import { Category } from "harness-tool/generated/pluggableharness/common/v1/common_pb.js";
import {
  GetSchemaResponseSchema,
  ToolKind,
  type GetSchemaResponse,
} from "harness-tool/generated/pluggableharness/tool/v1/tool_pb.js";
import {
  checkConfigAttributeDeclarations,
  checkSlashCommands,
  checkSource,
  checkToolDeclarations,
  configAttributesFromWire,
  invariantSources,
  providerRuleSources,
  toolDeclarationFromWire,
  type InvariantRule,
  type ProviderRule,
  type ProviderViolation,
} from "harness-tool/schema";
import { PROTOCOL_VERSION } from "harness-tool/service";
import { ProviderCallError, type LaunchedProvider } from "harness-tool/host";
import { ruleResult, type RuleResult } from "./conformance-report.js";

/** Rules the wire form cannot express, so they are not checked on a running provider. */
const notOnTheWire = new Set<InvariantRule>(["idempotent-required", "process-backed-streams"]);

/** How long a unary call may take. */
export const unaryTimeout = { timeoutMs: 10_000 };

/** Describe names a TOOL producer of this protocol version, with a source the kernel resolves. */
export async function describeRules(launched: LaunchedProvider): Promise<RuleResult[]> {
  const { row, source } = await describeRule(launched);
  if (source === undefined) return [row];
  return [row, ...providerRuleRows(["source-forge-address"], checkSource(source))];
}

/** Describe's producer, and the source it reports. */
async function describeRule(launched: LaunchedProvider): Promise<{ row: RuleResult; source?: string }> {
  const rule = (status: RuleResult["status"], why: string, source?: string) => ({
    row: ruleResult("describe.producer", "Describe", status, why),
    ...(source !== undefined ? { source } : {}),
  });
  let d: Awaited<ReturnType<LaunchedProvider["describe"]>>["producer"];
  try {
    d = (await launched.describe(unaryTimeout)).producer;
  } catch (e) {
    return rule("fail", e instanceof ProviderCallError ? `Describe failed: ${e.details}` : (e as Error).message);
  }
  const problems: string[] = [];
  if (!d) problems.push("no producer");
  else {
    if (d.name === "") problems.push("empty name");
    if (d.version === "") problems.push("empty version");
    if (d.category !== Category.TOOL) problems.push(`category ${Category[d.category] ?? d.category}, not TOOL`);
    if (d.protocolVersion !== PROTOCOL_VERSION)
      problems.push(`protocol_version ${d.protocolVersion}, not ${PROTOCOL_VERSION}`);
  }
  if (problems.length > 0) return rule("fail", problems.join("; "), d?.source);
  return rule("pass", `${d?.name} ${d?.version} ${d?.source}`, d?.source);
}

/** GetSchema, asked twice: the schema when it answers (the same both times or not), and its row. */
export async function staticSchemaRule(
  launched: LaunchedProvider,
): Promise<{ row: RuleResult; schema?: GetSchemaResponse }> {
  try {
    const schema = await launched.getSchema(unaryTimeout);
    const again = await launched.getSchema(unaryTimeout);
    const same = equals(GetSchemaResponseSchema, schema, again);
    const row = ruleResult(
      "schema.static",
      "GetSchema: re-queryable, static",
      same ? "pass" : "fail",
      same ? `${schema.tools.length} tool(s)` : "two GetSchema calls returned different answers",
    );
    return { row, schema };
  } catch (e) {
    return { row: ruleResult("schema.static", "GetSchema", "fail", (e as Error).message) };
  }
}

export function invariantRules(schema: GetSchemaResponse): RuleResult[] {
  const declarations = schema.tools.map(toolDeclarationFromWire);
  const violations = checkToolDeclarations(declarations);
  const rows: RuleResult[] = [];
  for (const rule of Object.keys(invariantSources) as InvariantRule[]) {
    if (notOnTheWire.has(rule)) continue;
    const broken = violations.filter((v) => v.rule === rule);
    const id = `schema.${rule}`;
    if (broken.length === 0) rows.push(ruleResult(id, invariantSources[rule], "pass"));
    else {
      const status = broken.every((v) => v.severity === "warning") ? "warn" : "fail";
      rows.push(
        ruleResult(id, invariantSources[rule], status, broken.map((v) => `${v.tool}: ${v.message}`).join("; ")),
      );
    }
  }
  rows.push(resourceKeysRule(schema));
  rows.push(
    ...providerRuleRows(
      configRules,
      checkConfigAttributeDeclarations(configAttributesFromWire(schema.configSchema?.attributes ?? [])),
    ),
  );
  rows.push(...providerRuleRows(slashCommandRules, checkSlashCommands(schema.slashCommands)));
  return rows;
}

const configRules: readonly ProviderRule[] = [
  "config-attribute-name",
  "config-attribute-unique",
  "config-attribute-type",
  "config-object-attributes",
  "config-object-attributes-only",
  "config-default-json",
  "config-default-type",
  "config-sensitive-default",
];
const slashCommandRules: readonly ProviderRule[] = [
  "slash-command-name",
  "slash-command-unique",
  "slash-command-template",
];

/** One row per provider-wide rule (harness-tool/schema's, as start-up and the plugin apply them). */
function providerRuleRows(rules: readonly ProviderRule[], violations: readonly ProviderViolation[]): RuleResult[] {
  return rules.map((rule) => {
    const broken = violations.filter((v) => v.rule === rule);
    if (broken.length === 0) return ruleResult(`schema.${rule}`, providerRuleSources[rule], "pass");
    const status = broken.every((v) => v.severity === "warning") ? "warn" : "fail";
    return ruleResult(
      `schema.${rule}`,
      providerRuleSources[rule],
      status,
      broken.map((v) => `${v.message} (${v.fix})`).join("; "),
    );
  });
}

/**
 * A resource tool declared `safe: true` without key_fields lets the kernel run any two of its
 * calls at once, writes to the same thing included. That is a legitimate claim (annotations.proto:
 * "safe = true alone claims no two calls can conflict"), so it is never an error and the plugin does
 * not warn on every generate; check, where an author reviews what the kernel will trust, says so.
 */
export function resourceKeysRule(schema: GetSchemaResponse): RuleResult {
  const section = "GetSchema: resource concurrency without key_fields (review)";
  const unkeyed = schema.tools.filter(
    (t) => t.kind === ToolKind.RESOURCE && t.concurrency?.safe === true && t.concurrency.keyFields.length === 0,
  );
  if (unkeyed.length === 0) return ruleResult("schema.resource-keys", section, "pass");
  return ruleResult(
    "schema.resource-keys",
    section,
    "warn",
    unkeyed
      .map(
        (t) =>
          `${t.name}: safe = true with no key_fields, so the kernel may run two of its calls at once; name the input fields that identify what a call changes in key_fields, unless no two calls can ever conflict`,
      )
      .join("; "),
  );
}
