/**
 * `harness-tool docs <provider>`: the provider's reference docs in Markdown, from what it declares
 * (Describe, GetSchema with its ConfigSchema, Preview of an example call per tool): an index and a
 * page per tool, through templates the author may override; `--check` fails while the committed
 * docs differ from what would be written.
 */
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { JsonObject } from "@bufbuild/protobuf";
import { defineCommand } from "./command-definition.js";
import { readJsonObjectFile } from "./command-options.js";
import { configureProvider } from "./configure-provider.js";
import { collectDocsInput } from "../docs/collect-docs-input.js";
import { docsDifferences, renderDocs, writeDocs } from "../docs/docs-files.js";
import { loadTemplates } from "../docs/docs-templates.js";
import { CommandDeadline, parseTimeout } from "../provider/command-deadline.js";
import { launchProvider } from "../provider/launch-provider.js";
import { type ProviderCommand, providerTarget } from "../provider/provider-target.js";

/** What the command line chose. */
export interface DocsOptions {
  /** The provider as given, for the line that says what to run. */
  readonly given: string;
  readonly outDir: string;
  readonly check: boolean;
  readonly config?: string | undefined;
  readonly examples?: string | undefined;
  readonly templates?: string | undefined;
  readonly timeoutMs: number;
  readonly out: NodeJS.WritableStream;
  readonly err: NodeJS.WritableStream;
}

/** docs' `--timeout` when none is given: the launch, Configure, and a Preview per tool. */
export const defaultDocsTimeoutMs = 60_000;

/** The command that writes the docs as `options` asked for them (`--check` left out). */
function regenerateLine(options: DocsOptions): string {
  const flags = [
    ["--out-dir", options.outDir === "docs" ? undefined : options.outDir],
    ["--config", options.config],
    ["--examples", options.examples],
    ["--templates", options.templates],
  ].flatMap(([flag, value]) => (value === undefined ? [] : [`${flag} ${value}`]));
  return ["harness-tool docs", options.given, ...flags].join(" ");
}

/** The provider's command with its file as an absolute path: it is launched in a folder of its own. */
function absoluteCommand(provider: ProviderCommand): ProviderCommand {
  const isPath = provider.command.includes("/") || provider.command.includes(path.sep);
  return isPath ? { ...provider, command: path.resolve(provider.command) } : provider;
}

/** Runs the command; resolves to the exit code (1 when `--check` finds the docs out of date). */
export async function docsCommand(provider: ProviderCommand, options: DocsOptions): Promise<number> {
  const config: JsonObject = options.config === undefined ? {} : readJsonObjectFile(options.config, "--config");
  const examples =
    options.examples === undefined
      ? undefined
      : {
          file: options.examples,
          args: readJsonObjectFile(options.examples, "--examples") as { [tool: string]: JsonObject },
        };
  const deadline = new CommandDeadline(options.timeoutMs);
  // The provider runs in an empty folder of its own, so a relative root in the config ("." in a
  // dev-config.json) and the Preview calls' working directory are that folder, never this machine's paths.
  const workingDirectory = realpathSync(mkdtempSync(path.join(os.tmpdir(), "harness-tool-docs-")));
  try {
    const input = await deadline.run(async () => {
      const launched = await launchProvider(absoluteCommand(provider), {
        ...deadline.launchOptions(),
        cwd: workingDirectory,
      });
      try {
        deadline.enter("Configure");
        await configureProvider(launched, config, {
          configFile: options.config,
          timeoutMs: deadline.callTimeoutMs(30_000),
        });
        return await collectDocsInput(launched, {
          examples,
          workingDirectory,
          callTimeoutMs: () => deadline.callTimeoutMs(10_000),
          enter: (stage) => deadline.enter(stage),
        });
      } finally {
        deadline.enter("Shutdown");
        await launched.kill();
      }
    });
    const files = renderDocs(
      input,
      loadTemplates(
        options.templates,
        input.schema.tools.map((t) => t.name),
      ),
    );
    if (options.check) {
      const differences = docsDifferences(options.outDir, files);
      if (differences.length === 0) return 0;
      for (const line of differences) options.err.write(`harness-tool docs: ${line}\n`);
      options.err.write(
        `harness-tool docs: the docs are out of date: run ${regenerateLine(options)} and commit them\n`,
      );
      return 1;
    }
    writeDocs(options.outDir, files);
    options.out.write(`wrote ${files.size} files to ${options.outDir}\n`);
    return 0;
  } finally {
    rmSync(workingDirectory, { recursive: true, force: true });
  }
}

/** The command line of `harness-tool docs`. */
export const docsCommandDefinition = defineCommand({
  name: "docs",
  summary: "write a provider's reference docs in Markdown; --check fails when they are out of date",
  description:
    'Launches the provider, configures it (--config, else {}) and writes <out-dir>/README.md (every tool\'s kind, risk, idempotent, streaming, concurrency, default timeout and terminates_turn; the hook points; the config attributes and the agent.hcl block, secrets as env("…"); the slash commands) and <out-dir>/tools/<tool>.md (description, input and output fields, the JSON Schema the model receives, an example call and its Preview). Example calls come from --examples (arguments by tool name, as check --args-file takes them), else the smallest valid call. --templates names a folder of index.md, tool.md or tools/<tool>.md overriding the pages (docs/guide.md lists the placeholders). The output is the same on every machine: sorted, no dates, no paths.',
  positionals: [{ name: "provider" }],
  flags: {
    "out-dir": { type: "string", value: "dir", default: "docs", description: "where the docs go" },
    check: {
      type: "boolean",
      description:
        "write nothing; exit 1, one line per file, when the docs in --out-dir differ from what would be written",
    },
    config: {
      type: "string",
      value: "file.json",
      description: "the config to Configure the provider with (default {})",
    },
    examples: {
      type: "string",
      value: "file.json",
      description: "example calls' arguments by tool name (check --args-file's format; $expect is ignored)",
    },
    templates: {
      type: "string",
      value: "dir",
      description: "a folder of templates overriding the pages: index.md, tool.md, tools/<tool>.md",
    },
    timeout: {
      type: "string",
      value: "duration",
      default: "60s",
      description: "the deadline of the launch and every call together; at it the provider is killed",
    },
  },
  providerArgs: true,
  examples: [
    "harness-tool docs dist/provider.mjs --config dev-config.json",
    "harness-tool docs dist/provider.mjs --config dev-config.json --check",
    "harness-tool docs . --templates docs-templates --examples docs-examples.json",
  ],
  run: async ({ values, positionals, providerArgs }, { out, err }) => {
    const given = positionals[0] as string;
    return docsCommand(providerTarget(given, providerArgs), {
      given,
      outDir: values["out-dir"],
      check: values.check,
      config: values.config,
      examples: values.examples,
      templates: values.templates,
      timeoutMs: parseTimeout(values.timeout),
      out,
      err,
    });
  },
});
