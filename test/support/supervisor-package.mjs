/**
 * The supervisor program the tests run by default: supervisor-go built for this platform
 * (supervisor-go/build.mjs) and installed as its package in the checkout's node_modules
 * (`@harness-tool/supervisor-<os>-<cpu>`), where the runtime finds it as it finds the optional
 * dependency a user's install brings. test/run.mjs installs it once per run; a test file run alone
 * installs it itself when it is missing or older than the Go sources.
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { buildSupervisor, supervisorPlatforms } from "../../supervisor-go/build.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const platform = `${process.platform}-${process.arch}`;

/** This platform's package folder in the checkout's node_modules. */
export const installedSupervisorPackage = path.join(root, "node_modules/@harness-tool", `supervisor-${platform}`);
/** The binary the runtime finds there. */
export const installedSupervisorBinary = path.join(installedSupervisorPackage, "bin/harness-tool-supervisor");

/** Why the Go supervisor cannot be built here, or undefined. */
function cannotBuild() {
  if (!Object.hasOwn(supervisorPlatforms, platform)) return `no supervisor package for ${platform}`;
  if (spawnSync("go", ["version"], { timeout: 30_000 }).status !== 0) return "`go` is not installed";
  return undefined;
}

/** Whether the installed binary is older than a Go source of supervisor-go (or missing). */
function stale() {
  if (!existsSync(installedSupervisorBinary)) return true;
  const built = statSync(installedSupervisorBinary).mtimeMs;
  const sources = path.join(root, "supervisor-go");
  return readdirSync(sources).some((f) => /\.(go|mod)$/.test(f) && statSync(path.join(sources, f)).mtimeMs > built);
}

/**
 * Builds and installs the package (always with `force`, else only when stale); returns the binary
 * and the build's seconds, or why not. Without Go it throws when HARNESS_TOOL_REQUIRE_INTEROP is "1".
 */
export function installSupervisorPackage({ force = false } = {}) {
  const reason = cannotBuild();
  if (reason !== undefined) {
    if (process.env.HARNESS_TOOL_REQUIRE_INTEROP === "1")
      throw new Error(`the Go supervisor cannot be built: ${reason} (install Go 1.26 or later)`);
    return { reason };
  }
  if (!force && !stale()) return { binary: installedSupervisorBinary, seconds: 0 };
  const started = performance.now();
  mkdirSync(installedSupervisorPackage, { recursive: true });
  copyFileSync(
    path.join(root, "supervisor-go/npm", platform, "package.json"),
    path.join(installedSupervisorPackage, "package.json"),
  );
  buildSupervisor(platform, installedSupervisorBinary);
  return { binary: installedSupervisorBinary, seconds: (performance.now() - started) / 1000 };
}
