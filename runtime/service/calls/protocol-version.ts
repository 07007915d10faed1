/**
 * The tool-provider protocol revision this package implements: what Describe reports in
 * ProducerRef.protocol_version and what `harness-tool check` expects of a provider. (go-plugin's
 * own application protocol version, offered in PLUGIN_PROTOCOL_VERSIONS, is a different number:
 * runtime/transport/plugin-environment.ts.)
 */
export const PROTOCOL_VERSION = 1;
