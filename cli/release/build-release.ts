/**
 * A release from a provider's entry: the single-file `.mjs`, one single executable per platform,
 * `SHA256SUMS` and the lock file's provider block, all in one folder. The provider's identity (the
 * name and version in every file name, the source in the lock block) is what the built provider
 * itself reports through Describe, so the files and the lock agree with what the kernel will see.
 */
import { chmodSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { givenNodeBinary, nodeBinaryFor, nodeCacheDir, type NodeBinary } from "./node-binaries.js";
import { ReleaseError } from "./release-error.js";
import {
  artifactOf,
  lockBlock,
  lockFile,
  releaseManifest,
  resolvedAt,
  sha256Sums,
  type ProviderIdentity,
  type ReleaseArtifact,
} from "./release-manifest.js";
import {
  embeddedNodeVersion,
  executableName,
  hostPlatformKey,
  platformFiles,
  releasePlatforms,
  type ReleasePlatform,
} from "./release-platforms.js";
import { missingBuiltins, preparationBlob, writeSingleExecutable } from "./single-executable.js";
import {
  bundleAsScript,
  singleExecutableMain,
  singleFileModule,
  supervisorAssetKey,
  type ScriptBundle,
} from "./script-bundle.js";
import { carriedDigest, carriedFor, type PlatformCarry } from "./carried-packages.js";
import { installBeside, readPackageJson } from "./unbundled-packages.js";
import { nodeSupervisorWarning, supervisorBinaryFor, type SupervisorBinary } from "./supervisor-binaries.js";
import { bundleEarlySupervision } from "./early-supervision.js";
import { runtimeRootFrom } from "../provider/runtime-sources.js";

/** What a release is asked for. */
export interface ReleaseRequest {
  readonly entry: string;
  readonly outDir: string;
  readonly platforms: readonly ReleasePlatform[];
  /** Binaries the user named per platform key (`--node darwin_arm64=<file>`). */
  readonly nodeBinaries: ReadonlyMap<string, string>;
  /** Supervisor programs the user named per platform key (`--supervisor-binary linux_arm64=<file>`). */
  readonly supervisorBinaries?: ReadonlyMap<string, string>;
  /** The exact Node version the executables embed (`--node 24`, resolved); embeddedNodeVersion by default. */
  readonly nodeVersion?: string;
  /** Launches the built `.mjs` and returns its Describe's producer. */
  readonly describe: (moduleFile: string) => Promise<ProviderIdentity>;
  /**
   * Put V8's code cache into this machine's platform's executable (it starts faster; its bytes
   * differ on every build, so its checksum cannot be rebuilt elsewhere). Other platforms go without.
   */
  readonly codeCache?: boolean;
  /** One line of progress, for a person. */
  readonly log: (line: string) => void;
  readonly cacheDir?: string;
}

/** What a release wrote. */
export interface ReleaseResult {
  readonly identity: ProviderIdentity;
  /** The `.mjs` first, then the executables in the order of the platforms. */
  readonly artifacts: readonly ReleaseArtifact[];
  readonly lockBlock: string;
  /** Where each platform's node came from, by key. */
  readonly nodeOrigins: ReadonlyMap<string, string>;
  /** The supervisor program each platform's executable carries, by key (none: the Node supervisor). */
  readonly supervisors: ReadonlyMap<string, SupervisorBinary | undefined>;
  readonly sumsFile: string;
  readonly manifestFile: string;
  readonly lockFile: string;
}

/** `--node <os_arch>=<file>` values, by platform key. */
export function parseNodeBinaries(values: readonly string[]): Map<string, string> {
  return platformFiles("--node", "darwin_arm64=./node", values);
}

/** A `node` of the embedded version that runs here, to prepare the blob: this one if it is, else the host's from npm. */
async function blobGenerator(version: string, cacheDir: string): Promise<string> {
  if (process.version === `v${version}`) return process.execPath;
  const host = hostPlatformKey();
  const [platform] = host === undefined ? [] : releasePlatforms([host]);
  if (!platform) throw new ReleaseError(`a release is prepared by Node ${version}: run it with that version of node`);
  return (await nodeBinaryFor(platform, version, cacheDir)).file;
}

/** The platform's node: the one the user named, else npm's. */
function nodeFor(
  request: ReleaseRequest,
  platform: ReleasePlatform,
  cacheDir: string,
): Promise<NodeBinary> | NodeBinary {
  const given = request.nodeBinaries.get(platform.key);
  return given !== undefined
    ? givenNodeBinary(platform, given)
    : nodeBinaryFor(platform, request.nodeVersion ?? embeddedNodeVersion, cacheDir);
}

/**
 * Refuses a platform whose Node lacks a built-in module the program uses (`node:sqlite` in Node 20),
 * asked of its own node where it runs here, else of the generator (npm's node of the same version);
 * a node given for another platform cannot be asked.
 */
async function refuseMissingBuiltins(
  request: ReleaseRequest,
  used: readonly string[],
  nodes: readonly NodeBinary[],
  generator: () => Promise<string>,
) {
  for (const [index, platform] of request.platforms.entries()) {
    const given = request.nodeBinaries.has(platform.key);
    const host = platform.key === hostPlatformKey();
    if (!host && given) continue;
    const missing = await missingBuiltins(host ? (nodes[index] as NodeBinary).file : await generator(), used);
    if (missing.length > 0) {
      const which = given
        ? `the node given for ${platform.key}`
        : `${platform.key}'s Node ${request.nodeVersion ?? embeddedNodeVersion}`;
      throw new ReleaseError(
        `the program uses ${missing.join(", ")}, which ${which} does not have: embed a Node that has it (--node ${platform.key}=<node>)`,
      );
    }
  }
}

/** Builds the release into `request.outDir`. */
export async function buildRelease(request: ReleaseRequest): Promise<ReleaseResult> {
  const cacheDir = request.cacheDir ?? nodeCacheDir();
  const bundle = await bundleAsScript(request.entry);
  for (const pkg of bundle.kept) request.log(`kept ${pkg.name}@${pkg.version} out of the program: ${pkg.reason}`);
  const { nodes, carries, generator } = await platformNodes(request, bundle, cacheDir);
  const supervisors = await platformSupervisors(request, bundle, cacheDir);
  mkdirSync(request.outDir, { recursive: true });
  const staged = await stageModule(request, bundle);
  const { identity } = staged;
  const artifacts: ReleaseArtifact[] = [];
  const moduleArtifact = placeModule(request, bundle, staged);
  if (moduleArtifact) artifacts.push(moduleArtifact);
  const nodeOrigins = new Map<string, string>();
  if (generator !== undefined) {
    const built = await buildExecutables(request, bundle, identity, { nodes, carries, generator, supervisors });
    artifacts.push(...built);
    for (const [index, platform] of request.platforms.entries())
      nodeOrigins.set(platform.key, (nodes[index] as NodeBinary).origin);
  }
  const sumsFile = path.join(request.outDir, "SHA256SUMS");
  writeFileSync(sumsFile, sha256Sums(artifacts));
  const block = lockBlock(identity, artifacts, resolvedAt());
  const lockPath = path.join(request.outDir, "agent.lock.hcl");
  writeFileSync(lockPath, lockFile(block));
  const supervisorByKey = new Map(request.platforms.map((p, index) => [p.key, supervisors[index]]));
  const manifestFile = path.join(request.outDir, "release-manifest.json");
  writeFileSync(manifestFile, releaseManifest(identity, artifacts, nodeOrigins, supervisorByKey));
  return {
    identity,
    artifacts,
    lockBlock: block,
    nodeOrigins,
    supervisors: supervisorByKey,
    sumsFile,
    lockFile: lockPath,
    manifestFile,
  };
}

/**
 * Each platform's supervisor program (undefined: its executable keeps the Node supervisor), found
 * before anything is written; the platforms without one are said in one line.
 */
async function platformSupervisors(
  request: ReleaseRequest,
  bundle: ScriptBundle,
  cacheDir: string,
): Promise<(SupervisorBinary | undefined)[]> {
  const none = request.platforms.map(() => undefined);
  const projectDir = path.dirname(path.resolve(bundle.entry));
  const runtimeRoot = runtimeRootFrom(projectDir);
  if (request.platforms.length === 0 || runtimeRoot === undefined) return none;
  // Only a program that decides supervision in its first lines (early-supervision.ts) can hand it over.
  const early = await bundleEarlySupervision({
    entry: bundle.entry,
    providerInputs: bundle.inputs,
    providerRoot: bundle.root,
    conditions: bundle.conditions,
    format: "iife",
    globalName: "supervisor",
  });
  if (early === undefined) return none;
  const { version } = readPackageJson(runtimeRoot);
  const search = {
    given: request.supervisorBinaries ?? new Map<string, string>(),
    projectDir,
    runtimeVersion: version ?? "",
    cacheDir,
  };
  const found: (SupervisorBinary | undefined)[] = [];
  const missing = new Map<string, string>();
  for (const platform of request.platforms) {
    const binary = await supervisorBinaryFor(platform, search);
    if ("missing" in binary) missing.set(platform.key, binary.missing);
    found.push("missing" in binary ? undefined : binary);
  }
  const warning = nodeSupervisorWarning(missing);
  if (warning !== undefined) request.log(warning);
  return found;
}

/** Each platform's node and carried packages, and the node that prepares the blobs (none without platforms). */
interface PlatformNodes {
  readonly nodes: readonly NodeBinary[];
  readonly carries: readonly PlatformCarry[];
  readonly generator: string | undefined;
}

/**
 * Every platform's node and the packages it carries, before anything is written: a platform that
 * cannot be built (no node, no build of an addon, a built-in module missing) stops the release here.
 */
async function platformNodes(request: ReleaseRequest, bundle: ScriptBundle, cacheDir: string): Promise<PlatformNodes> {
  const nodes: NodeBinary[] = [];
  for (const platform of request.platforms) nodes.push(await nodeFor(request, platform, cacheDir));
  const carries: PlatformCarry[] = [];
  for (const [index, platform] of request.platforms.entries()) {
    const version = request.nodeBinaries.has(platform.key) ? undefined : (request.nodeVersion ?? embeddedNodeVersion);
    carries.push(await carriedFor(bundle.kept, platform, nodes[index] as NodeBinary, version));
  }
  await refuseMissingBuiltins(request, bundle.builtins, nodes, () =>
    blobGenerator(request.nodeVersion ?? embeddedNodeVersion, cacheDir),
  );
  const generator =
    request.platforms.length > 0
      ? await blobGenerator(request.nodeVersion ?? embeddedNodeVersion, cacheDir)
      : undefined;
  return { nodes, carries, generator };
}

/** The `.mjs` written and described: where it waits, and what the provider reports of itself. */
interface StagedModule {
  readonly identity: ProviderIdentity;
  /** The output folder, or with packages kept out a folder inside it holding them. */
  readonly staging: string;
  readonly pending: string;
  /** Removes what staging left. */
  readonly discard: () => void;
}

/** Writes the `.mjs` under a temporary name and asks it for its identity, which must be able to name files. */
async function stageModule(request: ReleaseRequest, bundle: ScriptBundle): Promise<StagedModule> {
  // With packages kept out, the `.mjs` is described from a folder holding them (and then not shipped).
  const staging = bundle.kept.length > 0 ? path.join(request.outDir, `.release-${process.pid}`) : request.outDir;
  mkdirSync(staging, { recursive: true });
  if (staging !== request.outDir) installBeside(staging, bundle.kept);
  const pending = path.join(staging, `.release-${process.pid}.mjs`);
  const discard = () => rmSync(staging === request.outDir ? pending : staging, { recursive: true, force: true });
  writeFileSync(pending, await singleFileModule(bundle));
  chmodSync(pending, 0o755);
  let identity: ProviderIdentity;
  try {
    identity = await request.describe(pending);
  } catch (error) {
    discard();
    throw error;
  }
  for (const [what, value] of [
    ["name", identity.name],
    ["version", identity.version],
  ] as const) {
    if (!/^[A-Za-z0-9][A-Za-z0-9._+-]*$/.test(value)) {
      discard();
      throw new ReleaseError(
        `the provider's Describe reports the ${what} ${JSON.stringify(value)}, which cannot name a release file: set it in the proto or package.json`,
      );
    }
  }
  return { identity, staging, pending, discard };
}

/** Renames the staged `.mjs` to its release name, or drops it when it cannot carry the packages kept out. */
function placeModule(request: ReleaseRequest, bundle: ScriptBundle, staged: StagedModule): ReleaseArtifact | undefined {
  const { identity, staging, pending, discard } = staged;
  const moduleFile = path.join(request.outDir, `${identity.name}_${identity.version}.mjs`);
  if (staging === request.outDir) {
    renameSync(pending, moduleFile);
    request.log(`bundled ${bundle.modules} modules into ${path.relative(process.cwd(), moduleFile) || moduleFile}`);
    return artifactOf(moduleFile, undefined);
  }
  // One file cannot carry a native addon or a package's own files: the executables do.
  discard();
  rmSync(moduleFile, { force: true });
  const names = bundle.kept.map((k) => k.name).join(", ");
  request.log(
    `bundled ${bundle.modules} modules; ${path.basename(moduleFile)} not built: it cannot carry ${names} (the executables do)`,
  );
  return undefined;
}

/** One single executable per platform, in the order of the platforms. */
async function buildExecutables(
  request: ReleaseRequest,
  bundle: ScriptBundle,
  identity: ProviderIdentity,
  {
    nodes,
    carries,
    generator,
    supervisors,
  }: PlatformNodes & { readonly generator: string; readonly supervisors: readonly (SupervisorBinary | undefined)[] },
): Promise<ReleaseArtifact[]> {
  const artifacts: ReleaseArtifact[] = [];
  const main = await singleExecutableMain(bundle);
  const blob = await preparationBlob(main, generator);
  // The code cache is V8's for the machine that makes it: only the host's own node can.
  const cached = request.codeCache ? hostPlatformKey() : undefined;
  for (const [index, platform] of request.platforms.entries()) {
    const node = nodes[index] as NodeBinary;
    const outfile = path.join(request.outDir, executableName(identity.name, identity.version, platform));
    const withCache = platform.key === cached;
    // A node given for this machine's platform makes its own blob: right for whatever version it is.
    const own = withCache || (platform.key === hostPlatformKey() && request.nodeBinaries.has(platform.key));
    const carry = carries[index] as PlatformCarry;
    const supervisor = supervisors[index];
    const assets = supervisor ? [...carry.files, { key: supervisorAssetKey, source: supervisor.file }] : carry.files;
    let programBlob = blob;
    if (assets.length > 0) {
      // The packages and the supervisor it carries are this platform's own: its program and blob are too.
      const carrying = await singleExecutableMain(bundle, {
        keys: carry.files.map((f) => f.key),
        digest: carriedDigest(assets),
        ...(supervisor ? { supervisor: supervisorAssetKey } : {}),
      });
      programBlob = await preparationBlob(carrying, own ? node.file : generator, {
        codeCache: withCache,
        assets,
      });
    } else if (own) {
      programBlob = await preparationBlob(main, node.file, { codeCache: withCache });
    }
    await writeSingleExecutable(node.file, programBlob, platform, outfile);
    const artifact = artifactOf(outfile, platform.key);
    artifacts.push(artifact);
    const note = withCache
      ? ", with V8's code cache (not reproducible)"
      : request.codeCache
        ? ", without a code cache (only this machine's platform gets one)"
        : "";
    const carried =
      carry.files.length > 0
        ? `, carrying ${carry.files.length} files of ${bundle.kept.map((k) => k.name).join(", ")}`
        : "";
    const supervised = supervisor ? `, supervised by ${supervisor.origin}` : "";
    request.log(
      `${path.basename(outfile)}: ${node.origin}, ${(artifact.bytes / 1024 / 1024).toFixed(1)} MiB${carried}${supervised}${note}`,
    );
  }
  return artifacts;
}
