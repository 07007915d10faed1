/**
 * harness-tool: write tool providers for the PluggableHarness kernel.
 *
 * The wire types (protoc-gen-es output for the kernel's protos and harness-tool's annotations) are
 * exported per file under `harness-tool/generated/...`, e.g.
 * `import { ToolSchemaSchema } from "harness-tool/generated/pluggableharness/tool/v1/tool_pb.js"`.
 */

/** The tool-provider protocol revision this package implements (ProducerRef.protocol_version). */
export const PROTOCOL_VERSION = 1;
