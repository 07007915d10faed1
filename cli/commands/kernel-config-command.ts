/**
 * `harness-tool kernel-config <provider>`: the agent.hcl part (required_providers entry and provider
 * block) and the global config part (dev_overrides) the kernel needs for a provider, from what the
 * provider itself declares (Describe's producer, GetSchema's ConfigSchema).
 */
import { mkdirSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { defineCommand } from "./command-definition.js";
import {
  type KernelConfigTarget,
  patchConstraint,
  renderAgentConfig,
  renderGlobalConfig,
} from "../kernel-config/kernel-config-files.js";
import { launchProvider } from "../provider/launch-provider.js";
import { type ProviderCommand, providerTarget } from "../provider/provider-target.js";
import { UsageError } from "../terminal/usage-error.js";

/** What the command line chose beside the provider. */
export interface KernelConfigOptions {
  readonly name?: string | undefined;
  readonly source?: string | undefined;
  readonly constraint?: string | undefined;
  readonly devPath?: string | undefined;
  readonly outDir?: string | undefined;
  readonly out: NodeJS.WritableStream;
}

/**
 * The local build dev_overrides points at: the file given, or for a folder or its src/ entry the
 * dist/provider.mjs `npm run build` makes; the kernel launches only executables, never a source entry.
 */
function localBuild(given: string): string {
  const resolved = path.resolve(given);
  let isFolder = false;
  try {
    isFolder = statSync(resolved).isDirectory();
  } catch {
    // A bare name found on PATH: the kernel would need its full path; --dev-path gives it.
  }
  if (isFolder) return path.join(resolved, "dist/provider.mjs");
  if (/\.(c|m)?ts$/.test(resolved)) {
    if (path.basename(path.dirname(resolved)) === "src")
      return path.join(path.dirname(path.dirname(resolved)), "dist/provider.mjs");
    throw new UsageError(
      `the kernel launches an executable, not ${given}: give the built one with --dev-path, e.g. --dev-path dist/provider.mjs`,
    );
  }
  return resolved;
}

/** Launches the provider, asks who it is and what it accepts; resolves to the exit code. */
export async function kernelConfigCommand(
  provider: ProviderCommand,
  given: string,
  options: KernelConfigOptions,
): Promise<number> {
  const devPath = options.devPath !== undefined ? path.resolve(options.devPath) : localBuild(given);
  const launched = await launchProvider(provider);
  let target: KernelConfigTarget;
  try {
    const [described, schema] = [
      await launched.describe({ timeoutMs: 10_000 }),
      await launched.getSchema({ timeoutMs: 10_000 }),
    ];
    const producer = described.producer;
    const name = options.name ?? producer?.name ?? "";
    const source = options.source ?? producer?.source ?? "";
    const version = producer?.version ?? "";
    if (!/^[A-Za-z_][A-Za-z0-9_-]*$/.test(name)) {
      throw new UsageError(
        `the provider's name ${JSON.stringify(name)} is not an HCL identifier: give one with --name, e.g. --name notes`,
      );
    }
    if (source === "")
      throw new UsageError(
        "the provider reports no source address: give one with --source, e.g. --source github.com/acme/provider-notes",
      );
    if (options.constraint === undefined && version === "")
      throw new UsageError(
        "the provider reports no version: give a constraint with --constraint, e.g. --constraint '~> 1.0'",
      );
    target = {
      name,
      source,
      version: options.constraint ?? patchConstraint(version),
      config: schema.configSchema,
      devPath,
    };
  } finally {
    await launched.kill();
  }
  const agent = renderAgentConfig(target);
  const global = renderGlobalConfig(target);
  if (options.outDir === undefined) {
    options.out.write(`${agent}\n${global}`);
    return 0;
  }
  mkdirSync(options.outDir, { recursive: true });
  writeFileSync(path.join(options.outDir, "agent.hcl"), agent);
  writeFileSync(path.join(options.outDir, "config.hcl"), global);
  options.out.write(
    `wrote ${path.join(options.outDir, "agent.hcl")} (merge into agent.hcl) and ${path.join(options.outDir, "config.hcl")} (merge into ~/.config/agent/config.hcl)\n`,
  );
  return 0;
}

/** The command line of `harness-tool kernel-config`. */
export const kernelConfigCommandDefinition = defineCommand({
  name: "kernel-config",
  summary: "write the kernel's agent.hcl entries and dev_overrides line for a provider",
  description:
    'Launches the provider, reads its name, source and version (Describe) and its ConfigSchema (GetSchema), and writes the required_providers entry and the provider block of agent.hcl (each attribute with its description; sensitive ones as env("<NAME>_<ATTRIBUTE>"), the only form the kernel accepts; optional ones commented out with their default), then the dev_overrides entry that makes the kernel launch this local build, which belongs in the global config ($XDG_CONFIG_HOME/agent/config.hcl), never in agent.hcl.',
  positionals: [{ name: "provider" }],
  flags: {
    name: {
      type: "string",
      value: "local-name",
      description: "the local name in required_providers (default: the provider's own name)",
    },
    source: {
      type: "string",
      value: "address",
      description: "the registry source address (default: the provider's own)",
    },
    constraint: {
      type: "string",
      value: "version",
      description: "the version constraint (default: ~> the provider's version, patch releases)",
    },
    "dev-path": {
      type: "string",
      value: "file",
      description: "the local build dev_overrides launches (default: the provider given; a folder's dist/provider.mjs)",
    },
    "out-dir": {
      type: "string",
      value: "dir",
      description: "write agent.hcl and config.hcl there instead of printing both",
    },
  },
  providerArgs: true,
  examples: [
    "harness-tool kernel-config dist/provider.mjs",
    "harness-tool kernel-config dist/provider.mjs --constraint '~> 1.0'",
    "harness-tool kernel-config . --out-dir kernel",
  ],
  run: async ({ values, positionals, providerArgs }, { out }) => {
    const given = positionals[0] as string;
    return kernelConfigCommand(providerTarget(given, providerArgs), given, {
      name: values.name,
      source: values.source,
      constraint: values.constraint,
      devPath: values["dev-path"],
      outDir: values["out-dir"],
      out,
    });
  },
});
