/**
 * The ToolSchema invariants, written once. The plugin reports them against proto source locations,
 * the runtime refuses to start a provider that breaks one, and `harness-tool check` runs them
 * against any provider's GetSchema. The builder's types (define-tool.ts) express the same rules.
 */
import { checkToolSchemaDocument } from "./schema-subset.js";
import type { ToolDeclaration } from "./tool-declaration.js";

/** The rules, by stable id. */
export type InvariantRule =
  | "name-format"
  | "name-unique"
  | "description-required"
  | "kind-required"
  | "risk-required"
  | "risk-matches-kind"
  | "concurrency-required"
  | "concurrency-forbidden"
  | "key-fields-need-safe"
  | "key-fields-in-input"
  | "data-source-safe"
  | "terminates-turn-resource-only"
  | "idempotent-required"
  | "process-backed-streams"
  | "input-schema-subset"
  | "output-schema-subset"
  | "timeout-positive"
  | "default-timeout-recommended";

/**
 * The declaration property a violation is about, named as in harnesstool.v1.ToolOptions (the
 * plugin maps it to the option's source location).
 */
export type InvariantSubject =
  | "name"
  | "description"
  | "kind"
  | "risk"
  | "concurrency"
  | "concurrency.key_fields"
  | "terminates_turn"
  | "idempotent"
  | "streaming"
  | "input_schema"
  | "output_schema"
  | "default_timeout";

/** One broken rule. */
export interface InvariantViolation {
  readonly tool: string;
  readonly rule: InvariantRule;
  /** Errors make a provider invalid; warnings are SHOULDs and never fail anything. */
  readonly severity: "error" | "warning";
  readonly subject: InvariantSubject;
  /** When the subject is a list (`concurrency.key_fields`), the index of the offending element. */
  readonly index?: number;
  /** What is wrong, naming the values involved. */
  readonly message: string;
  /** How to fix it. */
  readonly fix: string;
}

/** The protocol's section each rule comes from, for reports. */
export const invariantSources: { readonly [R in InvariantRule]: string } = {
  "name-format": "GetSchema: ToolSchema.name",
  "name-unique": "GetSchema: ToolSchema.name (unique within the provider)",
  "description-required": "GetSchema: ToolSchema.description",
  "kind-required": "GetSchema: ToolSchema.kind",
  "risk-required": "GetSchema: ToolSchema.risk",
  "risk-matches-kind": "GetSchema: kind and risk",
  "concurrency-required": "GetSchema: ToolSchema.concurrency",
  "concurrency-forbidden": "GetSchema: kind interactive",
  "key-fields-need-safe": "data-types: ConcurrencySpec",
  "key-fields-in-input": "data-types: ConcurrencySpec",
  "data-source-safe": "data-types: ConcurrencySpec (data_source SHOULD be safe)",
  "terminates-turn-resource-only": "GetSchema: ToolSchema.terminates_turn",
  "idempotent-required": "GetSchema: ToolSchema.idempotent",
  "process-backed-streams": "Invoke: exit_status",
  "input-schema-subset": "GetSchema: ToolSchema.input_schema (common subset)",
  "output-schema-subset": "GetSchema: ToolSchema.output_schema (common subset)",
  "timeout-positive": "GetSchema: ToolSchema.default_timeout",
  "default-timeout-recommended": "GetSchema: ToolSchema.default_timeout (SHOULD)",
};

/**
 * A name every model API takes: OpenAI and Anthropic take 1 to 64 of letters, digits, _ and -;
 * Gemini also wants a letter or _ first.
 */
const toolNamePattern = /^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$/;

/** "a data_source tool", "an interactive tool". */
function aKind(kind: string): string {
  return `${/^[aeiou]/.test(kind) ? "an" : "a"} ${kind} tool`;
}

/** Records one violation of the tool being checked. */
type AddViolation = (
  rule: InvariantRule,
  subject: InvariantSubject,
  message: string,
  fix: string,
  severity?: "error" | "warning",
  index?: number,
) => void;

/** Every rule one tool breaks, errors first in declaration order, then warnings. */
export function checkToolDeclaration(tool: ToolDeclaration): InvariantViolation[] {
  const out: InvariantViolation[] = [];
  const add: AddViolation = (rule, subject, message, fix, severity = "error", index) => {
    out.push({ tool: tool.name, rule, severity, subject, ...(index === undefined ? {} : { index }), message, fix });
  };
  checkIdentity(tool, add);
  checkKindAndRisk(tool, add);
  checkConcurrency(tool, add);
  checkFlags(tool, add);
  checkSchemas(tool, add);
  checkTimeout(tool, add);
  return out;
}

/** The name and the description. */
function checkIdentity(tool: ToolDeclaration, add: AddViolation): void {
  if (!toolNamePattern.test(tool.name)) {
    add(
      "name-format",
      "name",
      `tool name ${JSON.stringify(tool.name)} is not 1 to 64 letters, digits, _ or -, starting with a letter or _ (model APIs refuse it)`,
      "use a snake_case name such as read_file",
    );
  }
  if (tool.description.trim() === "") {
    add(
      "description-required",
      "description",
      "the tool has no description",
      "write a leading comment on the rpc or set description",
    );
  }
}

/** kind and risk are set, and the risk is one the kind allows. */
function checkKindAndRisk(tool: ToolDeclaration, add: AddViolation): void {
  if (tool.kind === "unspecified") {
    add(
      "kind-required",
      "kind",
      "kind is not set",
      "set kind to TOOL_KIND_RESOURCE, TOOL_KIND_DATA_SOURCE or TOOL_KIND_INTERACTIVE",
    );
  }
  if (tool.risk === "unspecified") {
    add(
      "risk-required",
      "risk",
      "risk is not set",
      tool.kind === "resource" ? "set risk to low, moderate, high or critical" : "set risk to RISK_CLASS_READ_ONLY",
    );
  } else if ((tool.kind === "data_source" || tool.kind === "interactive") && tool.risk !== "read_only") {
    add(
      "risk-matches-kind",
      "risk",
      `${aKind(tool.kind)} must be read_only, not ${tool.risk}`,
      `set risk to RISK_CLASS_READ_ONLY, or make the tool a resource if it mutates`,
    );
  } else if (tool.kind === "resource" && tool.risk === "read_only") {
    add(
      "risk-matches-kind",
      "risk",
      "a resource is never read_only",
      "set risk to low, moderate, high or critical, or make the tool a data_source if it only reads",
    );
  }
}

/** concurrency where the kind needs it and not where it forbids it; key_fields name top-level input fields of a safe tool. */
function checkConcurrency(tool: ToolDeclaration, add: AddViolation): void {
  if ((tool.kind === "resource" || tool.kind === "data_source") && !tool.concurrency) {
    add(
      "concurrency-required",
      "concurrency",
      `${aKind(tool.kind)} must declare concurrency`,
      "set concurrency: {safe: true} (with key_fields when same-key calls conflict) or {safe: false}",
    );
  }
  if (tool.kind === "interactive" && tool.concurrency) {
    add(
      "concurrency-forbidden",
      "concurrency",
      "an interactive tool must not declare concurrency (the kernel runs interactive calls one at a time)",
      "remove concurrency",
    );
  }
  const keyFields = tool.concurrency?.keyFields ?? [];
  if (tool.kind === "data_source" && tool.concurrency && !tool.concurrency.safe) {
    add(
      "data-source-safe",
      "concurrency",
      "a data_source with safe: false takes the provider-wide lock, and reads seldom conflict",
      "set safe: true (with key_fields if same-key reads do conflict), unless its reads truly must not overlap",
      "warning",
    );
  }
  if (tool.concurrency && !tool.concurrency.safe && keyFields.length > 0) {
    add(
      "key-fields-need-safe",
      "concurrency.key_fields",
      "key_fields are set but safe is false (safe: false already takes a provider-wide lock)",
      "set safe: true, or remove key_fields",
    );
  }
  // A declaration decoded from another provider's GetSchema may have no usable input schema;
  // checkSchemas reports that as input-schema-subset, so only well-formed properties are read here.
  const inputProperties: object =
    typeof tool.inputSchema?.properties === "object" && tool.inputSchema.properties !== null
      ? tool.inputSchema.properties
      : {};
  for (const [index, key] of keyFields.entries()) {
    if (!Object.hasOwn(inputProperties, key)) {
      add(
        "key-fields-in-input",
        "concurrency.key_fields",
        `key field ${JSON.stringify(key)} is not a top-level field of the input`,
        `name one of: ${Object.keys(inputProperties).join(", ") || "(the input has no fields)"}`,
        "error",
        index,
      );
    }
  }
}

/** terminates_turn, idempotent and streaming agree with the kind and with process_backed. */
function checkFlags(tool: ToolDeclaration, add: AddViolation): void {
  if (tool.terminatesTurn && tool.kind !== "resource") {
    add(
      "terminates-turn-resource-only",
      "terminates_turn",
      `terminates_turn is for resource tools only, and this tool is ${tool.kind}`,
      "remove terminates_turn",
    );
  }
  if (tool.idempotent === undefined) {
    add(
      "idempotent-required",
      "idempotent",
      "idempotent is not stated",
      "set idempotent: true if re-running with identical arguments cannot end differently, else idempotent: false",
    );
  }
  if (tool.processBacked && !tool.streaming) {
    add(
      "process-backed-streams",
      "streaming",
      "a process-backed tool streams its output, but streaming is false",
      "set streaming: true or remove it (process_backed implies it)",
    );
  }
}

/** The input and output schemas stay inside the JSON-Schema subset. */
function checkSchemas(tool: ToolDeclaration, add: AddViolation): void {
  for (const problem of checkToolSchemaDocument(tool.inputSchema)) {
    add(
      "input-schema-subset",
      "input_schema",
      `input schema ${problem.path || "/"}: ${problem.message}`,
      "keep the schema inside the common subset",
    );
  }
  for (const problem of checkToolSchemaDocument(tool.outputSchema)) {
    add(
      "output-schema-subset",
      "output_schema",
      `output schema ${problem.path || "/"}: ${problem.message}`,
      "keep the schema inside the common subset",
    );
  }
}

/** The default timeout is positive, and recommended. */
function checkTimeout(tool: ToolDeclaration, add: AddViolation): void {
  if (tool.defaultTimeoutMs !== undefined && !(tool.defaultTimeoutMs > 0 && Number.isFinite(tool.defaultTimeoutMs))) {
    add(
      "timeout-positive",
      "default_timeout",
      `default timeout ${tool.defaultTimeoutMs} ms is not a positive duration`,
      "set a positive default_timeout, or leave it out",
    );
  }
  if (tool.defaultTimeoutMs === undefined) {
    add(
      "default-timeout-recommended",
      "default_timeout",
      "no default_timeout: the kernel's global default applies",
      "set default_timeout to a deadline that suits the tool",
      "warning",
    );
  }
}

/** Every rule a provider's tools break, including duplicate names. */
export function checkToolDeclarations(tools: readonly ToolDeclaration[]): InvariantViolation[] {
  const out: InvariantViolation[] = [];
  const seen = new Set<string>();
  for (const tool of tools) {
    out.push(...checkToolDeclaration(tool));
    if (seen.has(tool.name)) {
      out.push({
        tool: tool.name,
        rule: "name-unique",
        severity: "error",
        subject: "name",
        message: `tool name ${JSON.stringify(tool.name)} is declared more than once`,
        fix: "give each tool its own name",
      });
    }
    seen.add(tool.name);
  }
  return out;
}

/** One line per violation: `tool: message (fix) [rule]`. */
export function formatViolation(v: InvariantViolation): string {
  return `${v.tool}: ${v.message} (${v.fix}) [${v.rule}]`;
}
