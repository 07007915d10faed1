/**
 * `harness-tool/redaction`: the runtime's secret rules for tools that show a provider's traffic to a
 * person (the CLI's inspector): which configuration values are secrets, and the redactor that
 * replaces them in every form the runtime recognises (raw, JSON-escaped, URL-encoded), with the
 * same marker. A provider never needs this: serve() applies these rules at every exit itself.
 */
export { collectSecrets, minimumSubstringSecretLength } from "./collect-secrets.js";
export { createRedactor, redactionMarker, secretForms, type SecretRedactor } from "./redact-secrets.js";
