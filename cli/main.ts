/**
 * The `harness-tool` command line: init, schema, invoke, check, sync. Each command resolves to an
 * exit code; usage mistakes print a one-line explanation and exit 2, never a stack trace.
 */
import { parseArgs } from "node:util";
import { UsageError } from "./usage-error.js";
import { splitProviderArgs } from "./provider-command.js";

// Each command is imported when it runs: `sync` loads ts-morph (a whole TypeScript compiler),
// which the other commands should not pay for at start-up.

const help = `harness-tool: build, run and test PluggableHarness tool providers

Usage:
  harness-tool init [dir] [--name N] [--source S] [--examples a,b] [--force]
  harness-tool schema <provider> [--json] [-- provider args]
  harness-tool invoke <provider> <tool> --args '<json>' [--config file.json] [--cwd dir] [--json] [--trace] [-- provider args]
  harness-tool check <provider> [--config file.json] [--allow-resources --args-file args.json] [--cwd dir] [--json] [-- provider args]
  harness-tool sync <handlers.ts ...> [--dry-run]
  harness-tool bundle <entry.js> [--outfile dist/provider.mjs] [--external pkg]
  harness-tool inspect <provider> [--config file.json] [--port N] [--cwd dir] [-- provider args]

<provider> is the provider's executable, started directly as the kernel starts it (no shell).
`;

type Streams = { out: NodeJS.WriteStream; err: NodeJS.WriteStream };

async function run(argv: readonly string[], { out, err }: Streams): Promise<number> {
  const [command, ...rest] = argv;
  const { cli, providerArgs } = splitProviderArgs(rest);
  switch (command) {
    case undefined:
    case "help":
    case "--help":
    case "-h":
      out.write(help);
      return command === undefined ? 2 : 0;
    case "schema": {
      const { values, positionals } = parseArgs({ args: cli, allowPositionals: true, options: { json: { type: "boolean", default: false } } });
      const [provider] = positionals;
      if (!provider || positionals.length > 1) throw new UsageError("usage: harness-tool schema <provider> [--json]");
      const { schemaCommand } = await import("./commands/schema-command.js");
      return schemaCommand({ command: provider, args: providerArgs }, { json: values.json, out });
    }
    case "invoke": {
      const { values, positionals } = parseArgs({
        args: cli,
        allowPositionals: true,
        options: {
          args: { type: "string", default: "{}" },
          config: { type: "string" },
          cwd: { type: "string" },
          json: { type: "boolean", default: false },
          trace: { type: "boolean", default: false },
        },
      });
      const [provider, tool] = positionals;
      if (!provider || !tool || positionals.length > 2) throw new UsageError("usage: harness-tool invoke <provider> <tool> --args '<json>'");
      const { invokeCommand, parseArgsJson } = await import("./commands/invoke-command.js");
      const interrupt = new AbortController();
      const onSigint = () => interrupt.abort();
      process.once("SIGINT", onSigint);
      try {
        return await invokeCommand(
          { command: provider, args: providerArgs },
          {
            tool,
            args: parseArgsJson(values.args),
            ...(values.config ? { configFile: values.config } : {}),
            cwd: values.cwd ?? process.cwd(),
            json: values.json,
            trace: values.trace,
            out,
            err,
            interrupt: interrupt.signal,
          },
        );
      } finally {
        process.off("SIGINT", onSigint);
      }
    }
    case "check": {
      const { values, positionals } = parseArgs({
        args: cli,
        allowPositionals: true,
        options: {
          config: { type: "string" },
          "allow-resources": { type: "boolean", default: false },
          "args-file": { type: "string" },
          cwd: { type: "string" },
          json: { type: "boolean", default: false },
        },
      });
      const [provider] = positionals;
      if (!provider || positionals.length > 1) throw new UsageError("usage: harness-tool check <provider>");
      const { checkCommand } = await import("./commands/check-command.js");
      return checkCommand(
        { command: provider, args: providerArgs },
        {
          ...(values.config ? { configFile: values.config } : {}),
          allowResources: values["allow-resources"],
          ...(values["args-file"] ? { argsFile: values["args-file"] } : {}),
          cwd: values.cwd ?? process.cwd(),
          json: values.json,
          out,
        },
      );
    }
    case "sync": {
      const { values, positionals } = parseArgs({ args: cli, allowPositionals: true, options: { "dry-run": { type: "boolean", default: false } } });
      const { syncCommand } = await import("./commands/sync-command.js");
      return syncCommand(positionals, { dryRun: values["dry-run"], out });
    }
    case "bundle": {
      const { values, positionals } = parseArgs({
        args: cli,
        allowPositionals: true,
        options: { outfile: { type: "string", default: "dist/provider.mjs" }, external: { type: "string", multiple: true, default: [] } },
      });
      const [entry] = positionals;
      if (!entry || positionals.length > 1) throw new UsageError("usage: harness-tool bundle <entry.js> [--outfile dist/provider.mjs]");
      const { bundleCommand } = await import("./commands/bundle-command.js");
      return bundleCommand(entry, { outfile: values.outfile, external: values.external, out });
    }
    case "inspect": {
      const { runInspect } = await import("./commands/inspect-command.js");
      return runInspect(cli, providerArgs, { out, err });
    }
    case "init": {
      const { initCommand } = await import("./commands/init-command.js");
      return initCommand(cli, { out, err });
    }
    default:
      throw new UsageError(`unknown command ${JSON.stringify(command)}; see harness-tool --help`);
  }
}

/** Runs the CLI with `argv` (without node and the script) and returns the exit code. */
export async function main(argv: readonly string[], streams: Streams = { out: process.stdout, err: process.stderr }): Promise<number> {
  try {
    return await run(argv, streams);
  } catch (e) {
    if (e instanceof UsageError || (e instanceof TypeError && (e as NodeJS.ErrnoException).code?.startsWith("ERR_PARSE_ARGS"))) {
      streams.err.write(`harness-tool: ${e.message}\n`);
      return 2;
    }
    streams.err.write(`harness-tool: ${(e as Error).message ?? String(e)}\n`);
    return 1;
  }
}
