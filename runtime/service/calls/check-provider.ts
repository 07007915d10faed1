/**
 * The start-up check of a provider, run by createToolService before the handshake: the same
 * ToolSchema invariants the plugin applies at generation time, plus what only a hand-built
 * provider can get wrong (a handler that is not a function, a preview that does not match its
 * declaration, a bad config declaration, an inconsistent hook declaration).
 *
 * A hand-built provider that breaks an invariant fails before the handshake, with a message naming
 * the tool and the rule (docs/runtime.md#start-up).
 */
import { hookDeclarationProblems } from "../../provider/hook-subscriptions.js";
import type { ProviderDefinition } from "../../provider/provider-definition.js";
import { checkToolDeclarations, formatViolation } from "../../schema/invariants.js";
import { checkProviderDeclaration, formatProviderViolation } from "../../schema/provider-rules.js";

/** A provider that cannot be served; `problems` has one line per problem. */
export class ProviderDefinitionError extends Error {
  override readonly name = "ProviderDefinitionError";
  constructor(
    readonly providerName: string,
    readonly problems: readonly string[],
  ) {
    super(`provider ${JSON.stringify(providerName)} cannot be served:\n  ${problems.join("\n  ")}`);
  }
}

/** The result of checking a provider: errors make it unservable, warnings are SHOULDs. */
export interface ProviderCheck {
  readonly errors: readonly string[];
  readonly warnings: readonly string[];
}

/** Every problem of a provider definition, as `tool: message (fix) [rule]` lines and the like. */
export function checkProvider(provider: ProviderDefinition<unknown>): ProviderCheck {
  const errors: string[] = [];
  const warnings: string[] = [];
  for (const field of ["name", "version", "source"] as const) {
    if (typeof provider[field] !== "string" || provider[field].trim() === "") {
      errors.push(`provider: ${field} is empty (Describe reports it as ProducerRef.${field}) [identity-required]`);
    }
  }
  if (!Array.isArray(provider.tools)) {
    errors.push("provider: tools is not a list [tools-list]");
    return { errors, warnings };
  }
  for (const v of checkToolDeclarations(provider.tools.map((t) => t.declaration))) {
    (v.severity === "error" ? errors : warnings).push(formatViolation(v));
  }
  for (const tool of provider.tools) {
    const name = tool.declaration.name;
    if (typeof tool.handler !== "function")
      errors.push(
        `${name}: the handler is not a function (give an async function (input, context) => result) [handler-function]`,
      );
    if (typeof tool.validateInput !== "function" || typeof tool.validateOutput !== "function") {
      errors.push(
        `${name}: validateInput and validateOutput must be functions (use validatorFor(schema)) [validators-present]`,
      );
    }
    if (tool.declaration.preview && typeof tool.preview !== "function") {
      errors.push(
        `${name}: the tool declares preview, but has no preview handler (add one, or remove preview) [preview-matches-declaration]`,
      );
    }
    if (!tool.declaration.preview && tool.preview !== undefined) {
      errors.push(
        `${name}: the tool has a preview handler but does not declare preview (set preview: true) [preview-matches-declaration]`,
      );
    }
  }
  const configured =
    provider.config && typeof provider.config.decode === "function" && Array.isArray(provider.config.attributes);
  if (!configured) {
    errors.push(
      "provider: config must have attributes and a decode function (use emptyConfig() or defineConfig()) [config-definition]",
    );
  }
  for (const [version, renderer] of Object.entries(provider.renderers ?? {})) {
    if (typeof renderer !== "function")
      errors.push(
        `provider: the renderer for schema_version ${JSON.stringify(version)} is not a function [renderer-function]`,
      );
  }
  const attributes = configured ? provider.config.attributes : [];
  const declared = checkProviderDeclaration({
    source: typeof provider.source === "string" ? provider.source : "",
    configAttributes: attributes,
    slashCommands: provider.slashCommands ?? [],
  });
  for (const v of declared) {
    // An empty source is already reported as identity-required.
    if (v.rule === "source-forge-address" && (typeof provider.source !== "string" || provider.source.trim() === ""))
      continue;
    (v.severity === "error" ? errors : warnings).push(formatProviderViolation(v));
  }
  for (const line of hookDeclarationProblems(provider.hooks)) errors.push(`provider: ${line}`);
  return { errors, warnings };
}
