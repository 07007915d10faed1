/**
 * `harness-tool/schema`: the ToolSchema rules on their own, without the server (no gRPC, no
 * telemetry): the declaration types, the invariants of kind, risk, concurrency and key_fields,
 * the JSON-Schema subset, and the one validator of values against it (which generated code
 * builds its validators with). The protoc plugin checks protos with these at generation time;
 * serve() checks a provider with the same functions at start-up, and `harness-tool check` a
 * running binary.
 */
export type {
  JsonSchema,
  JsonSchemaArray,
  JsonSchemaBoolean,
  JsonSchemaNumber,
  JsonSchemaObject,
  JsonSchemaString,
} from "./json-schema.js";
export {
  riskClasses,
  riskNames,
  toolKindNames,
  toolKinds,
  toolSchemaFlagName,
  toolSchemaFlags,
  toolSchemaFlagValues,
  type ToolSchemaFlag,
  type ConcurrencyDeclaration,
  type ResourceRiskName,
  type RiskName,
  type ToolDeclaration,
  type ToolKindName,
} from "./tool-declaration.js";
export { validateValue, validatorFor, type ValueCheck } from "./validate-value.js";
export type { ValueValidator, ValueViolation } from "./value-violation.js";
export { protocolNames, type ProtocolName, type ProtocolNames } from "./protocol-names.js";
export {
  checkSchemaSubset,
  checkToolSchemaDocument,
  isToolSchemaDocument,
  type SchemaProblem,
} from "./schema-subset.js";
export {
  checkToolDeclaration,
  checkToolDeclarations,
  formatViolation,
  invariantSources,
  type InvariantRule,
  type InvariantSubject,
  type InvariantViolation,
} from "./invariants.js";
export {
  configAttributesFromWire,
  jsonSchemaFromWire,
  jsonSchemaToWire,
  toolDeclarationFromWire,
  toolDeclarationToWire,
} from "./wire-schema.js";
export {
  checkConfigAttributeDeclarations,
  checkProviderDeclaration,
  checkSlashCommands,
  checkSource,
  configAttributeTypes,
  formatProviderViolation,
  providerRuleSources,
  type ConfigAttributeRuleInput,
  type ProviderRule,
  type ProviderRuleInput,
  type ProviderSubject,
  type ProviderViolation,
} from "./provider-rules.js";
