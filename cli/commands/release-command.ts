/**
 * `harness-tool release [entry] [--platform linux_amd64,linux_arm64] [--out-dir release]`: the files
 * an operator installs the way the kernel installs a provider (cli/release/build-release.ts): one
 * single executable per platform that needs nothing installed, the single-file `.mjs` for machines
 * with Node, `SHA256SUMS`, and the lock file's provider block with each platform's checksum.
 */
import path from "node:path";
import { defineCommand } from "./command-definition.js";
import { durationText, parseTimeout } from "../provider/command-deadline.js";
import { launchProvider } from "../provider/launch-provider.js";
import type { ProviderIdentity } from "../release/release-manifest.js";
import { UsageError } from "../terminal/usage-error.js";

/** Options of the release command. */
export interface ReleaseOptions {
  readonly outDir: string;
  readonly platforms: readonly string[];
  readonly nodeBinaries: readonly string[];
  readonly supervisorBinaries?: readonly string[];
  readonly codeCache: boolean;
  /** The deadline of the whole release (the tools it runs, the built provider's Describe); default 30m. */
  readonly timeoutMs?: number;
  readonly out: NodeJS.WritableStream;
  readonly err: NodeJS.WritableStream;
}

/** release's `--timeout` when none is given (its flag's default). */
const defaultReleaseTimeoutMs = 30 * 60_000;
/** How long the built provider's launch and Describe may take. */
const describeTimeoutMs = 30_000;

/** Launches the built `.mjs` with this Node and asks it who it is (Describe's producer). */
async function describeBuilt(moduleFile: string): Promise<ProviderIdentity> {
  const launched = await launchProvider({ command: process.execPath, args: [moduleFile] });
  try {
    const { producer } = await launched.describe({ timeoutMs: describeTimeoutMs });
    if (!producer || producer.name === "" || producer.version === "") {
      throw new UsageError(
        "the built provider's Describe names no producer: give its proto's provider option a source and package.json a version",
      );
    }
    return { name: producer.name, version: producer.version, source: producer.source };
  } finally {
    await launched.kill();
  }
}

/** Builds the release of `entry` under the command's deadline; resolves to the exit code. */
export async function releaseCommand(entry: string, options: ReleaseOptions): Promise<number> {
  const { ReleaseError } = await import("../release/release-error.js");
  const { withToolDeadline } = await import("../release/run-tool.js");
  const timeoutMs = options.timeoutMs ?? defaultReleaseTimeoutMs;
  const deadline = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const longer = durationText(timeoutMs * 2);
      reject(
        new ReleaseError(
          `did not finish within ${durationText(timeoutMs)}, the tools it was running killed (a slow registry or network? give it longer with --timeout ${longer})`,
        ),
      );
      deadline.abort();
    }, timeoutMs);
  });
  try {
    return await Promise.race([withToolDeadline(deadline.signal, () => buildReleaseFiles(entry, options)), expired]);
  } finally {
    clearTimeout(timer);
  }
}

/** Resolves the Node to embed, builds the release and reports its files; resolves to the exit code. */
async function buildReleaseFiles(entry: string, options: ReleaseOptions): Promise<number> {
  const { buildRelease, parseNodeBinaries } = await import("../release/build-release.js");
  const { embeddedNodeVersion, hostPlatformKey, releasePlatforms } = await import("../release/release-platforms.js");
  const { checkNodeLine, resolveNodeVersion, splitNodeOption } = await import("../release/node-lines.js");
  const { parseSupervisorBinaries } = await import("../release/supervisor-binaries.js");
  const platforms = releasePlatforms(options.platforms);
  const chosen = splitNodeOption(options.nodeBinaries);
  const nodeBinaries = parseNodeBinaries(chosen.binaries);
  const supervisorBinaries = parseSupervisorBinaries(options.supervisorBinaries ?? []);
  // A line resolves against the packages npm serves the platforms from (the host's prepares the program).
  const fetched = platforms.filter((p) => !nodeBinaries.has(p.key));
  const host = hostPlatformKey();
  const packages = (fetched.length > 0 ? fetched : releasePlatforms(host === undefined ? [] : [host])).map(
    (p) => p.nodePackage,
  );
  const nodeVersion =
    chosen.version === undefined ? embeddedNodeVersion : await resolveNodeVersion(chosen.version, packages);
  checkNodeLine(Number(nodeVersion.split(".")[0]));
  const result = await buildRelease({
    entry,
    outDir: path.resolve(options.outDir),
    platforms,
    nodeBinaries,
    supervisorBinaries,
    nodeVersion,
    codeCache: options.codeCache,
    describe: describeBuilt,
    log: (line) => options.err.write(`${line}\n`),
  });
  const shown = (file: string) => path.relative(process.cwd(), file) || file;
  options.err.write(
    `wrote ${shown(result.sumsFile)}, ${shown(result.manifestFile)} and ${shown(result.lockFile)}; the lock file's provider block:\n`,
  );
  options.out.write(result.lockBlock);
  for (const platform of platforms.filter((p) => p.needsSigning)) {
    options.err.write(
      `${platform.key}: sign it on a Mac, then put its new checksum in SHA256SUMS and the lock block (docs/shipping.md)\n`,
    );
  }
  return 0;
}

/** The command line of `harness-tool release`. */
export const releaseCommandDefinition = defineCommand({
  name: "release",
  summary: "build single executables, SHA256SUMS and the lock file's provider block",
  description:
    "Bundles the entry into one program and builds, into --out-dir: <name>_<version>_<os>_<arch> for each platform, a single executable (Node's single-executable applications, the platform's node from the npm registry) that needs nothing installed and hands supervision to the Go supervisor it carries (the platform's @harness-tool/supervisor-<os>-<arch> package, installed or from the npm registry, or --supervisor-binary; without one it keeps the Node supervisor, with a warning); <name>_<version>.mjs, the same program in one file for machines with Node, source map inline (not built when the program keeps packages out, such as native addons: each executable carries them, for its platform, and unpacks them on first run); SHA256SUMS; release-manifest.json (each file's checksum, Node and supervisor); and agent.lock.hcl, whose provider block (printed on stdout) has each executable's checksum as the kernel verifies it. The name, version and source are what the built provider's Describe reports.",
  positionals: [{ name: "entry", optional: true }],
  flags: {
    platform: {
      type: "string",
      value: "os_arch,...",
      multiple: true,
      description:
        "linux_amd64, linux_arm64, darwin_amd64, darwin_arm64 (default: all four, as the lock file lists them)",
    },
    "out-dir": { type: "string", value: "dir", default: "release", description: "where the release's files go" },
    "code-cache": {
      type: "boolean",
      description:
        "V8's code cache in this machine's platform's executable: starts faster, but its bytes differ on every build",
    },
    node: {
      type: "string",
      value: "version|os_arch=file",
      multiple: true,
      description:
        "the Node to embed: an LTS line (24: its newest release on npm) or an exact version (24.22.3), end-of-life and odd lines refused; or os_arch=file, this node binary for that platform instead of npm's",
    },
    "supervisor-binary": {
      type: "string",
      value: "os_arch=file",
      multiple: true,
      description:
        "this supervisor program (supervisor-go/, built for that platform) in that platform's executable instead of its @harness-tool/supervisor-<os>-<arch> package",
    },
    timeout: {
      type: "string",
      value: "duration",
      default: "30m",
      description:
        "the deadline of the whole release (fetching each platform's node, injecting, the built provider's Describe); at it the tools still running are killed",
    },
  },
  examples: [
    "harness-tool release",
    "harness-tool release --platform linux_amd64,linux_arm64 --out-dir release",
    "harness-tool release --node 24",
    "harness-tool release --platform darwin_arm64 --node darwin_arm64=bin/node",
    "harness-tool release --platform linux_amd64",
  ],
  run: ({ values, positionals }, { out, err }) =>
    releaseCommand(positionals[0] ?? "src/main.ts", {
      outDir: values["out-dir"],
      platforms: values.platform,
      nodeBinaries: values.node,
      supervisorBinaries: values["supervisor-binary"],
      codeCache: values["code-cache"],
      timeoutMs: parseTimeout(values.timeout),
      out,
      err,
    }),
});
