/**
 * What a release states about its files: `SHA256SUMS` (one `<hex>  <file>` line per artifact, the
 * format `sha256sum -c` checks) and the `provider "<name>"` block of the kernel's lock file,
 * `.agent/agent.lock.hcl` (the kernel's docs/specifications/configuration/lock-file.md and
 * internal/registry/lockfile.go): `source`, the exact `version`, an RFC 3339 `resolved_at` and
 * `checksums`, one `"<os>_<arch>" = "sha256:<hex>"` per platform, which `VerifyChecksum` compares
 * with the SHA-256 of the installed executable before every launch.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";

/** The provider's identity, as its Describe reports it (ProducerRef). */
export interface ProviderIdentity {
  /** The name the lock file and required_providers use. */
  readonly name: string;
  readonly version: string;
  readonly source: string;
}

/** One file of the release. */
export interface ReleaseArtifact {
  readonly file: string;
  /** The lock file's platform key for an executable; undefined for the `.mjs`, which runs anywhere Node does. */
  readonly platform: string | undefined;
  readonly sha256: string;
  readonly bytes: number;
}

/** The artifact for `file`, its SHA-256 read from disk. */
export function artifactOf(file: string, platform: string | undefined): ReleaseArtifact {
  const data = readFileSync(file);
  return { file, platform, sha256: createHash("sha256").update(data).digest("hex"), bytes: data.length };
}

/** The `SHA256SUMS` text: a line per artifact, by file name. */
export function sha256Sums(artifacts: readonly ReleaseArtifact[]): string {
  return [...artifacts]
    .map((a) => ({ ...a, name: path.basename(a.file) }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((a) => `${a.sha256}  ${a.name}\n`)
    .join("");
}

/** An HCL quoted string: the JSON escapes HCL shares, and `${` / `%{` doubled so no template starts. */
export function hclString(value: string): string {
  return JSON.stringify(value)
    .replaceAll("${", () => "$${")
    .replaceAll("%{", () => "%%{");
}

/**
 * `resolved_at`: now, in RFC 3339 to the second; SOURCE_DATE_EPOCH (seconds) fixes it, so a
 * reproducible build writes the same block.
 */
export function resolvedAt(env: NodeJS.ProcessEnv = process.env, now: Date = new Date()): string {
  const epoch = env.SOURCE_DATE_EPOCH;
  const when = epoch !== undefined && /^\d+$/.test(epoch) ? new Date(Number(epoch) * 1000) : now;
  return when.toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** The `provider "<name>" { … }` block, its checksums for the executables' platforms in key order. */
export function lockBlock(identity: ProviderIdentity, artifacts: readonly ReleaseArtifact[], at: string): string {
  const platforms = artifacts
    .filter((a): a is ReleaseArtifact & { platform: string } => a.platform !== undefined)
    .sort((a, b) => a.platform.localeCompare(b.platform));
  const width = Math.max(0, ...platforms.map((a) => a.platform.length + 2));
  const checksums = platforms.map((a) => `    ${hclString(a.platform).padEnd(width)} = "sha256:${a.sha256}"`);
  return [
    `provider ${hclString(identity.name)} {`,
    `  source      = ${hclString(identity.source)}`,
    `  version     = ${hclString(identity.version)}`,
    `  resolved_at = ${hclString(at)}`,
    "  checksums = {",
    ...checksums,
    "  }",
    "}",
    "",
  ].join("\n");
}

/** A whole lock file holding the one block: what `.agent/agent.lock.hcl` holds for this provider alone. */
export function lockFile(block: string): string {
  return [
    "# Written by `harness-tool release`: the kernel verifies each platform's executable against",
    "# its checksum before launching it. Merge the provider block into .agent/agent.lock.hcl.",
    "lock_file_version = 1",
    "",
    block,
  ].join("\n");
}

/** What `release-manifest.json` says of a supervisor program an executable carries. */
export interface CarriedSupervisor {
  readonly origin: string;
  readonly sha256: string;
}

/**
 * `release-manifest.json`: the provider, and per artifact its checksum, the Node it embeds and the
 * supervisor it carries: `{"program": "harness-tool-supervisor", origin, sha256}` for the Go
 * program, `{"program": "node"}` for an executable that keeps the Node supervisor, null for the
 * `.mjs` (it carries none: it supervises as the harness-tool it bundles does where it runs).
 */
export function releaseManifest(
  identity: ProviderIdentity,
  artifacts: readonly ReleaseArtifact[],
  nodeOrigins: ReadonlyMap<string, string>,
  supervisors: ReadonlyMap<string, CarriedSupervisor | undefined>,
): string {
  const entries = artifacts.map((a) => {
    const base = { file: path.basename(a.file), platform: a.platform ?? null, sha256: a.sha256, bytes: a.bytes };
    if (a.platform === undefined) return { ...base, supervisor: null };
    const supervisor = supervisors.get(a.platform);
    return {
      ...base,
      node: nodeOrigins.get(a.platform) ?? null,
      supervisor: supervisor
        ? { program: "harness-tool-supervisor", origin: supervisor.origin, sha256: supervisor.sha256 }
        : { program: "node" },
    };
  });
  const provider = { name: identity.name, version: identity.version, source: identity.source };
  return `${JSON.stringify({ provider, artifacts: entries }, null, 2)}\n`;
}
