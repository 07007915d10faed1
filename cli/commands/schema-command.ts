/** `harness-tool schema <provider>`: launches a provider and prints its tools. */
import { toJsonString } from "@bufbuild/protobuf";
import {
  GetSchemaResponseSchema,
  type GetSchemaResponse,
} from "harness-tool/generated/pluggableharness/tool/v1/tool_pb.js";
import { toolSchemaFlagName, toolSchemaFlags } from "harness-tool/schema";
import { defineCommand } from "./command-definition.js";
import { CommandDeadline, parseTimeout } from "../provider/command-deadline.js";
import { launchProvider } from "../provider/launch-provider.js";
import { type ProviderCommand, providerTarget } from "../provider/provider-target.js";
import { renderTable } from "../terminal/table.js";
import { terminalWidth } from "../terminal/terminal-width.js";
import { concurrencyText, kindName, riskName, timeoutText } from "../terminal/wire-names.js";

/**
 * The tools table, `width` columns wide: name, kind, risk, concurrency, default timeout, and the
 * tool's flags (streaming, idempotent, terminates_turn; those that are set).
 */
export function renderToolsTable(schema: GetSchemaResponse, width = 80): string {
  return renderTable(
    ["name", "kind", "risk", "concurrency", "timeout", "flags"],
    schema.tools.map((t) => [
      t.name,
      kindName(t.kind),
      riskName(t.risk),
      concurrencyText(t),
      timeoutText(t),
      toolSchemaFlags
        .filter((flag) => t[flag])
        .map(toolSchemaFlagName)
        .join(", ") || "-",
    ]),
    {
      width,
      overflow: ["wrap", "truncate", "truncate", "wrap", "truncate", "wrap"],
      // The flags wrap first; then long key_fields lists and tool names wrap (after a comma or an
      // underscore): nothing a person needs is cut.
      shrink: [
        { column: 5, downTo: 15 },
        { column: 3, downTo: 12 },
        { column: 0, downTo: 16 },
      ],
    },
  );
}

/** Runs the command; resolves to the exit code. */
export async function schemaCommand(
  provider: ProviderCommand,
  options: { json: boolean; out: NodeJS.WritableStream; timeoutMs?: number },
): Promise<number> {
  const deadline = new CommandDeadline(options.timeoutMs ?? defaultSchemaTimeoutMs);
  return deadline.run(async () => {
    const launched = await launchProvider(provider, deadline.launchOptions());
    try {
      deadline.enter("GetSchema");
      const schema = await launched.getSchema({ timeoutMs: deadline.callTimeoutMs(10_000) });
      if (options.json) options.out.write(`${toJsonString(GetSchemaResponseSchema, schema, { prettySpaces: 2 })}\n`);
      else options.out.write(renderToolsTable(schema, terminalWidth(options.out)));
      return 0;
    } finally {
      deadline.enter("Shutdown");
      await launched.kill();
    }
  });
}

/** schema's `--timeout` when none is given (its flag's default, 30s): the launch and one GetSchema. */
export const defaultSchemaTimeoutMs = 30_000;

/** The command line of `harness-tool schema`. */
export const schemaCommandDefinition = defineCommand({
  name: "schema",
  summary: "launch a provider through the handshake and list its tools",
  description:
    "Prints one row per tool: its kind, risk class, whether it streams, its concurrency, default timeout, idempotence and whether it ends the turn.",
  positionals: [{ name: "provider" }],
  flags: {
    json: { type: "boolean", description: "print the GetSchemaResponse as JSON (the tools' JSON Schemas included)" },
    timeout: {
      type: "string",
      value: "duration",
      default: "30s",
      description: "the deadline of the launch and GetSchema together; at it the provider is killed",
    },
  },
  providerArgs: true,
  examples: [
    "harness-tool schema dist/provider.mjs",
    "harness-tool schema dist/provider.mjs --json",
    "harness-tool schema src/main.ts",
  ],
  run: async ({ values, positionals, providerArgs }, { out }) =>
    schemaCommand(providerTarget(positionals[0] as string, providerArgs), {
      json: values.json,
      out,
      timeoutMs: parseTimeout(values.timeout),
    }),
});
