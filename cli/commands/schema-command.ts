/** `harness-tool schema <provider>`: launches a provider and prints its tools. */
import { toJsonString } from "@bufbuild/protobuf";
import { GetSchemaResponseSchema, type GetSchemaResponse } from "../../generated/pluggableharness/tool/v1/tool_pb.js";
import { defineCommand } from "../command-definition.js";
import { launchProvider } from "../launch-provider.js";
import type { ProviderCommand } from "../provider-command.js";
import { renderTable } from "../terminal/table.js";
import { concurrencyText, kindName, riskName, timeoutText } from "../terminal/wire-names.js";

/** The tools table: name, kind, risk, streaming, concurrency, timeout, idempotent, terminates_turn. */
export function renderToolsTable(schema: GetSchemaResponse): string {
  return renderTable(
    ["name", "kind", "risk", "streaming", "concurrency", "timeout", "idempotent", "terminates_turn"],
    schema.tools.map((t) => [
      t.name,
      kindName(t.kind),
      riskName(t.risk),
      t.streaming ? "yes" : "no",
      concurrencyText(t),
      timeoutText(t),
      t.idempotent ? "yes" : "no",
      t.terminatesTurn ? "yes" : "no",
    ]),
  );
}

/** Runs the command; resolves to the exit code. */
export async function schemaCommand(provider: ProviderCommand, options: { json: boolean; out: NodeJS.WritableStream }): Promise<number> {
  const launched = await launchProvider(provider);
  try {
    const schema = await launched.getSchema({ timeoutMs: 10_000 });
    if (options.json) options.out.write(`${toJsonString(GetSchemaResponseSchema, schema, { prettySpaces: 2 })}\n`);
    else options.out.write(renderToolsTable(schema));
    return 0;
  } finally {
    await launched.kill();
  }
}

/** The command line of `harness-tool schema`. */
export const schemaCommandDefinition = defineCommand({
  name: "schema",
  summary: "launch a provider through the handshake and list its tools",
  description: "Prints one row per tool: its kind, risk class, whether it streams, its concurrency, default timeout, idempotence and whether it ends the turn.",
  positionals: [{ name: "provider" }],
  flags: { json: { type: "boolean", description: "print the GetSchemaResponse as JSON (the tools' JSON Schemas included)" } },
  providerArgs: true,
  examples: ["harness-tool schema dist/provider.mjs", "harness-tool schema dist/provider.mjs --json"],
  run: ({ values, positionals, providerArgs }, { out }) => schemaCommand({ command: positionals[0] as string, args: providerArgs }, { json: values.json, out }),
});
