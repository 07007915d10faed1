/**
 * The temp folder every suite works in, laid out like a provider repository that installed
 * harness-tool from npm: node_modules holds the repository's dependencies (symlinked) and a
 * `harness-tool` package with the protos, and, once built, the compiled runtime and its
 * declarations, so corpora type-check against what a user installs (.d.ts, skipLibCheck) rather
 * than against the runtime's sources.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { runTimed } from "./measure.js";

/** The repository root. */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** The repository's node_modules/.bin, first on PATH for `local:` buf plugins. */
export const repoBin = path.join(repoRoot, "node_modules", ".bin");

/** The buf executable: the native binary when npm left it in place (a Node wrapper costs a start-up per call). */
export function bufExecutable(): string {
  const native = path.join(repoRoot, "node_modules/@bufbuild/buf-linux-x64/bin/buf");
  if (process.platform === "linux" && process.arch === "x64" && existsSync(native)) return native;
  return path.join(repoBin, "buf");
}

/** The two compilers, by path (both packages ship a `tsc` bin, so never node_modules/.bin/tsc). */
export const compilers = {
  "TS 5.9": { command: process.execPath, args: [path.join(repoRoot, "node_modules/typescript/bin/tsc")] },
  "TS 7": { command: path.join(repoRoot, "node_modules/typescript7/bin/tsc"), args: [] as string[] },
} as const;

/** A compiler's name. */
export type CompilerName = keyof typeof compilers;

const workspaces = new Set<string>();

/** A temp provider-repository folder. */
export interface BenchWorkspace {
  readonly root: string;
  /** node_modules/harness-tool (the runtime package) inside root. */
  readonly packageDir: string;
  /** node_modules/@harness-tool/protoc-gen-harness-tool (the plugin package) inside root. */
  readonly pluginDir: string;
}

/** Creates a workspace under the OS temp dir; removeAllWorkspaces() deletes it. */
export function createWorkspace(label: string): BenchWorkspace {
  const root = mkdtempSync(path.join(os.tmpdir(), `harness-tool-bench-${label}-`));
  workspaces.add(root);
  const modules = path.join(root, "node_modules");
  mkdirSync(modules);
  // Everything the repository installed, except its own workspaces: those are built into the
  // workspace as npm would install them (buildPackage), never linked to their sources.
  for (const entry of readdirSync(path.join(repoRoot, "node_modules"))) {
    if (entry === "harness-tool" || entry === "@harness-tool" || entry === ".package-lock.json") continue;
    symlinkSync(path.join(repoRoot, "node_modules", entry), path.join(modules, entry));
  }
  const packageDir = path.join(modules, "harness-tool");
  mkdirSync(packageDir);
  copyFileSync(path.join(repoRoot, "runtime/package.json"), path.join(packageDir, "package.json"));
  const pluginDir = path.join(modules, "@harness-tool/protoc-gen-harness-tool");
  mkdirSync(pluginDir, { recursive: true });
  copyFileSync(path.join(repoRoot, "plugin/package.json"), path.join(pluginDir, "package.json"));
  copyFileSync(
    path.join(repoRoot, "plugin/protoc-gen-harness-tool.mjs"),
    path.join(pluginDir, "protoc-gen-harness-tool.mjs"),
  );
  symlinkSync(path.join(repoRoot, "proto"), path.join(pluginDir, "proto"));
  return { root, packageDir, pluginDir };
}

let socketDir: string | undefined;

/**
 * The folder launched providers put their unix sockets in (PLUGIN_UNIX_SOCKET_DIR), so a killed
 * provider leaves nothing in the OS temp dir; removeAllWorkspaces() deletes it.
 */
export function benchSocketDir(): string {
  if (socketDir === undefined || !existsSync(socketDir)) {
    socketDir = mkdtempSync(path.join(os.tmpdir(), "harness-tool-bench-sockets-"));
    workspaces.add(socketDir);
  }
  return socketDir;
}

/** Deletes every workspace this process created. */
export function removeAllWorkspaces(): void {
  for (const root of workspaces) rmSync(root, { recursive: true, force: true });
  workspaces.clear();
}

/** How building the package's dist went. */
export interface PackageBuild {
  readonly ok: boolean;
  readonly wallMs: number;
  /** Compiler diagnostics (the build emits despite type errors in work in progress). */
  readonly diagnostics: string;
}

/**
 * Builds the runtime package into the workspace's node_modules/harness-tool/dist (its
 * tsconfig.build.json and tsconfig.types.json, as its `npm run build`) and bundles the plugin
 * into node_modules/@harness-tool/protoc-gen-harness-tool/dist (plugin/bundle-plugin.mjs), as
 * `npm pack` ships them.
 */
export async function buildPackage(ws: BenchWorkspace, timeoutMs: number): Promise<PackageBuild> {
  const dist = path.join(ws.packageDir, "dist");
  const tsc = (config: string) =>
    runTimed(
      compilers["TS 5.9"].command,
      [...compilers["TS 5.9"].args, "-p", path.join(repoRoot, "runtime", config), "--outDir", dist],
      {
        cwd: repoRoot,
        timeoutMs,
        measureRss: false,
      },
    );
  const js = await tsc("tsconfig.build.json");
  const types = await tsc("tsconfig.types.json");
  const bundle = await runTimed(
    process.execPath,
    [path.join(repoRoot, "plugin/bundle-plugin.mjs"), path.join(ws.pluginDir, "dist")],
    {
      cwd: repoRoot,
      timeoutMs,
      measureRss: false,
    },
  );
  const ok =
    existsSync(path.join(dist, "index.js")) && existsSync(path.join(dist, "index.d.ts")) && bundle.status === 0;
  const diagnostics = [
    js.stdout + js.stderr,
    types.stdout + types.stderr,
    bundle.status === 0 ? "" : `plugin bundle: ${bundle.stdout}${bundle.stderr}`,
  ]
    .join("")
    .trim();
  return { ok, wallMs: js.wallMs + types.wallMs + bundle.wallMs, diagnostics };
}
