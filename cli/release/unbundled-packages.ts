/**
 * The packages a bundle must not inline, found while esbuild bundles, and their files installed
 * beside the bundle (`bundle`) or carried by a release (`release`).
 *
 * Kept out of the bundle:
 * - native addons: a package with `binding.gyp`, `"gypfile": true`, a `prebuilds/` folder, a `.node`
 *   file, or a dependency on an addon loader (`bindings`, `node-gyp-build`, `prebuild-install`,
 *   `@mapbox/node-pre-gyp`, `node-addon-api`). Their loaders look for the `.node` file from their
 *   own module's folder (`bindings` walks up from its caller's file), which an inlined copy no longer has;
 * - packages that load per-platform packages (optional dependencies with `os` or `cpu`);
 * - CommonJS code that reads `__dirname` or `__filename` (to find its own files: an ES module bundle
 *   has neither, the call throws `ReferenceError`), or that calls `require` with a computed name
 *   (esbuild cannot follow it: the module would be looked for beside the bundle).
 *
 * harness-tool's runtime and its dependencies are never kept out: grpc-js reads `__dirname` only in
 * its channelz and ORCA services, which the runtime never starts, and the bundled runtime is what
 * the suite tests.
 */
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { builtinModules } from "node:module";
import path from "node:path";
import type { OnResolveArgs, OnResolveResult, Plugin } from "esbuild";

/** A package kept out of the bundle, and why (one line). */
export interface KeptPackage {
  readonly name: string;
  readonly version: string;
  /** The package's folder (its real path). */
  readonly root: string;
  readonly reason: string;
  /** Whether it holds a native addon (a release must carry a build for each platform). */
  readonly native: boolean;
}

/** A package that cannot be carried, worded as one line that names it and the fix. */
export class UnbundledPackageError extends Error {
  override readonly name = "UnbundledPackageError";
}

/** The loaders of native addons: a package depending on one has an addon. */
const addonLoaders = [
  "bindings",
  "node-gyp-build",
  "prebuild-install",
  "@mapbox/node-pre-gyp",
  "node-addon-api",
  "node-gyp-build-optional-packages",
];

export interface PackageJson {
  name?: string;
  version?: string;
  gypfile?: boolean;
  os?: string[];
  cpu?: string[];
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

export function readPackageJson(root: string): PackageJson {
  try {
    return JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as PackageJson;
  } catch {
    return {};
  }
}

/** `@scope/name/sub` -> `@scope/name`; `name/sub` -> `name`. */
export function packageNameOf(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : (parts[0] as string);
}

/** The folder of package `name` as Node resolves it from `dir`, or undefined. */
export function resolvePackageRoot(name: string, dir: string): string | undefined {
  for (let at = path.resolve(dir); ; at = path.dirname(at)) {
    const candidate = path.join(at, "node_modules", name);
    if (existsSync(path.join(candidate, "package.json"))) return realpathSync(candidate);
    if (path.dirname(at) === at) return undefined;
  }
}

/** The package folder holding `file` (the last `node_modules/<name>` in its path), or undefined. */
function packageRootOfFile(file: string): string | undefined {
  const match = /^(.*[\\/]node_modules[\\/](?:@[^\\/]+[\\/])?[^\\/]+)[\\/]/.exec(file);
  return match?.[1];
}

/** The `.node` files of a package, relative to its folder (its own node_modules left out). */
export function addonFiles(root: string): string[] {
  const found: string[] = [];
  let budget = 5000;
  const walk = (dir: string, rel: string, depth: number) => {
    if (depth > 6) return;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (--budget < 0) return;
      const relative = rel === "" ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory() && entry.name !== "node_modules") walk(path.join(dir, entry.name), relative, depth + 1);
      else if (entry.isFile() && entry.name.endsWith(".node")) found.push(relative);
    }
  };
  walk(root, "", 0);
  return found;
}

/** Why the package at `root` holds a native addon or loads a per-platform package, or undefined. */
export function nativeReason(root: string): string | undefined {
  const pkg = readPackageJson(root);
  const signs: string[] = [];
  if (existsSync(path.join(root, "binding.gyp")) || pkg.gypfile === true) signs.push("binding.gyp");
  if (existsSync(path.join(root, "prebuilds"))) signs.push("prebuilds/");
  const deps = { ...pkg.dependencies, ...pkg.optionalDependencies };
  const loader = addonLoaders.find((l) => l in deps);
  if (loader !== undefined) signs.push(`loads it with ${loader}`);
  const addons = addonFiles(root);
  if (addons.length > 0)
    signs.push(addons.length > 1 ? `${addons[0]} and ${addons.length - 1} more .node files` : (addons[0] as string));
  if (signs.length > 0) return `a native addon (${signs.join("; ")})`;
  const perPlatform = Object.keys(pkg.optionalDependencies ?? {}).filter((dep) => {
    const depRoot = resolvePackageRoot(dep, root);
    const depPkg = depRoot === undefined ? {} : readPackageJson(depRoot);
    return depPkg.os !== undefined || depPkg.cpu !== undefined;
  });
  if (perPlatform.length > 0) return `loads a per-platform package (${perPlatform.slice(0, 2).join(", ")})`;
  return undefined;
}

/** Reads `__dirname` or `__filename` other than to test whether it exists. */
const readsOwnLocation = /(?<!typeof\s+)\b__(dirname|filename)\b/;

/**
 * A `require` whose argument is not a string literal: esbuild cannot follow it (and says nothing of
 * it in a package under node_modules). `typeof require`, `require.resolve` and `x.require(` are not.
 */
const computedRequire = /(?<![.\w$])require\s*\(\s*(?!['"`\s)])/;

/** The names of `harness-tool` and every package it depends on, resolved from `dir`. */
function runtimeClosure(dir: string): Set<string> {
  const root = resolvePackageRoot("harness-tool", dir);
  const names = new Set<string>(["harness-tool"]);
  if (root === undefined) return names;
  for (const pkg of dependencyClosure([root])) names.add(pkg.name);
  return names;
}

/** A package and its folder, as installed. */
interface InstalledPackage {
  readonly name: string;
  readonly root: string;
  /** The package that depends on it (undefined for a kept package itself). */
  readonly parent?: string;
}

/** The packages at `roots` and, transitively, the dependencies they need at run time that are installed. */
export function dependencyClosure(roots: readonly string[]): InstalledPackage[] {
  const seen = new Map<string, InstalledPackage>();
  const queue: InstalledPackage[] = roots.map((root) => ({
    name: readPackageJson(root).name ?? path.basename(root),
    root,
  }));
  while (queue.length > 0) {
    const next = queue.shift() as InstalledPackage;
    if (seen.has(next.root)) continue;
    seen.set(next.root, next);
    const pkg = readPackageJson(next.root);
    const required = Object.keys(pkg.dependencies ?? {});
    const optional = [...Object.keys(pkg.optionalDependencies ?? {}), ...Object.keys(pkg.peerDependencies ?? {})];
    for (const dep of [...required, ...optional]) {
      if (installOnly.has(dep)) continue;
      const depRoot = resolvePackageRoot(dep, next.root);
      if (depRoot === undefined) {
        if (required.includes(dep)) {
          throw new UnbundledPackageError(
            `${next.name} needs ${dep}, which is not installed: run npm install, then build again`,
          );
        }
        continue;
      }
      queue.push({ name: dep, root: depRoot, parent: next.root });
    }
  }
  return [...seen.values()];
}

/**
 * Finds what to keep out while esbuild bundles. `plugin()` goes first in a build's plugins; when
 * `needsRebuild()` after a build, build again (what the first build inlined but must not is kept
 * out the second time).
 */
export class UnbundledPackages {
  readonly #kept = new Map<string, KeptPackage>();
  readonly #classified = new Map<string, string | undefined>();
  #runtime: Set<string> | undefined;
  #inlinedButKept = false;

  /** `entryDir`: where the entry is (the runtime is resolved from there); `given`: the packages named by `--external`, left to esbuild. */
  constructor(
    private readonly entryDir: string,
    private readonly given: readonly string[] = [],
  ) {}

  /** The packages kept out, in the order found. */
  get kept(): KeptPackage[] {
    return [...this.#kept.values()];
  }

  #exempt(name: string): boolean {
    this.#runtime ??= runtimeClosure(this.entryDir);
    return this.#runtime.has(name);
  }

  #keep(root: string, reason: string, native: boolean): KeptPackage | undefined {
    const pkg = readPackageJson(root);
    const name = pkg.name ?? path.basename(root);
    if (this.#exempt(name)) return undefined;
    const existing = this.#kept.get(root);
    if (existing) return existing;
    const kept = { name, version: pkg.version ?? "0.0.0", root, reason, native };
    this.#kept.set(root, kept);
    return kept;
  }

  #nativeReason(root: string): string | undefined {
    if (!this.#classified.has(root)) this.#classified.set(root, nativeReason(root));
    return this.#classified.get(root);
  }

  /** Whether the last build inlined a package that must be kept out. */
  needsRebuild(): boolean {
    const again = this.#inlinedButKept;
    this.#inlinedButKept = false;
    return again;
  }

  /**
   * The esbuild plugin. `external` turns an import of a kept package into what the output needs
   * (an ES module bundle: `{ external: true }`; a classic script: a `require` of it).
   */
  plugin(external: (args: OnResolveArgs) => OnResolveResult = (args) => ({ path: args.path, external: true })): Plugin {
    const builtins = new Set(builtinModules);
    return {
      name: "harness-tool-unbundled-packages",
      setup: (build) => {
        build.onResolve({ filter: /^[^./]/ }, (args) => {
          if (args.path.startsWith("node:") || builtins.has(args.path)) return undefined;
          // The `require` of a kept package in a shim module (script-bundle.ts) stays a `require`.
          if (args.namespace !== "file" || args.resolveDir === "") {
            return [...this.#kept.values()].some((k) => k.name === packageNameOf(args.path))
              ? { path: args.path, external: true }
              : undefined;
          }
          if (this.given.includes(packageNameOf(args.path))) return undefined;
          const root = resolvePackageRoot(packageNameOf(args.path), args.resolveDir);
          if (root === undefined) return undefined;
          if (this.#kept.has(root)) return external(args);
          const reason = this.#nativeReason(root);
          if (reason === undefined || !this.#keep(root, reason, true)) return undefined;
          return external(args);
        });
        build.onLoad({ filter: /[\\/]node_modules[\\/].*\.c?js$/ }, (args) => {
          const root = packageRootOfFile(args.path);
          if (root === undefined || this.#kept.has(root)) return undefined;
          const text = readFileSync(args.path, "utf8");
          const file = path.relative(root, args.path);
          const found = readsOwnLocation.exec(text);
          const computed = computedRequire.exec(text);
          const reason = found
            ? `reads ${found[0]} to find its own files (${file})`
            : computed
              ? `calls require with a computed name (${file}:${text.slice(0, computed.index).split("\n").length})`
              : undefined;
          if (reason !== undefined && this.#keep(root, reason, false)) this.#inlinedButKept = true;
          return undefined;
        });
      },
    };
  }
}

/**
 * Runs `once` (an esbuild build whose plugins include `unbundled.plugin()`) until what it inlined
 * needs nothing kept out any more: a package found by what its inlined code reads is kept out by a
 * second build (rarely a third).
 */
export async function buildKeepingOut<R>(unbundled: UnbundledPackages, once: () => Promise<R>): Promise<R> {
  let result = await once();
  for (let again = 0; again < 3 && unbundled.needsRebuild(); again++) result = await once();
  return result;
}

/** Under `build/`, only the addons (`build/Release/x.node`): object files, copies and logs stay behind. */
const buildOutput = /^build\/(?!(?:[^/]+\/)?[^/]+\.node$)/;

/** Dependencies that only install or compile an addon, never loaded by it: not carried. */
const installOnly = new Set([
  "prebuild-install",
  "node-gyp",
  "node-addon-api",
  "node-gyp-build-optional-packages-install",
]);
/** C and C++ sources and objects: what compiled the addon, never loaded. */
const compileInputs = /\.(c|cc|cpp|cxx|h|hh|hpp|o|obj|a|lib|gyp|gypi|mk|tlog|pdb|exp|ilk)$/;

/** Which files of a package to carry for a platform (`<os>-<arch>`, Node's names), relative paths. */
export interface CarryPlan {
  /** The platform's `prebuilds/` folder name, e.g. `linux-x64`. */
  readonly prebuilds: string;
  /** Whether the host's build (`build/…/*.node`) may go: only for the platform it was built on. */
  readonly hostBuild: boolean;
}

/** The files of the package at `root` to carry (relative, `/`-separated). */
export function packageFiles(root: string, native: boolean, plan: CarryPlan): string[] {
  const files: string[] = [];
  const walk = (dir: string, rel: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const relative = rel === "" ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory()) {
        if (rel === "" && entry.name === "node_modules") continue;
        if (native && rel === "prebuilds" && entry.name !== plan.prebuilds) continue;
        if (native && rel === "" && entry.name === "build" && !plan.hostBuild) continue;
        walk(path.join(dir, entry.name), relative);
      } else if (entry.isFile()) {
        if (
          native &&
          (buildOutput.test(relative) || (compileInputs.test(entry.name) && !relative.startsWith("prebuilds/")))
        )
          continue;
        files.push(relative);
      }
    }
  };
  walk(root, "");
  return files;
}

/** Where each package of the closure goes under a `node_modules` folder: flat, nested on a clash. */
export function layout(closure: readonly InstalledPackage[]): Map<string, string> {
  const placed = new Map<string, string>();
  const taken = new Map<string, string>();
  for (const pkg of closure) {
    let at = pkg.name;
    if (taken.has(at) && taken.get(at) !== pkg.root)
      at = `${placed.get(pkg.parent as string)}/node_modules/${pkg.name}`;
    taken.set(at, pkg.root);
    placed.set(pkg.root, at);
  }
  return placed;
}

/** One file to carry: where it goes under `node_modules/`, and where it is. */
export interface CarriedFile {
  readonly key: string;
  readonly source: string;
}

/** The files of the kept packages and their dependencies, as `node_modules/…` keys, for a platform. */
export function carriedFiles(kept: readonly KeptPackage[], plan: CarryPlan): CarriedFile[] {
  // A package with an addon of its own (not one that loads a per-platform package) needs it built.
  for (const pkg of kept.filter((k) => k.native && k.reason.startsWith("a native addon") && plan.hostBuild)) {
    if (addonFiles(pkg.root).length === 0) {
      throw new UnbundledPackageError(
        `${pkg.name}@${pkg.version} is a native addon with no .node file built here (its install script did not build it): run npm rebuild ${pkg.name}, then build again`,
      );
    }
  }
  const closure = dependencyClosure(kept.map((k) => k.root));
  const places = layout(closure);
  const nativeRoots = new Set(kept.filter((k) => k.native).map((k) => k.root));
  const files: CarriedFile[] = [];
  for (const pkg of closure) {
    const at = places.get(pkg.root) as string;
    for (const rel of packageFiles(pkg.root, nativeRoots.has(pkg.root) || nativeReason(pkg.root) !== undefined, plan)) {
      files.push({ key: `node_modules/${at}/${rel}`, source: path.join(pkg.root, rel) });
    }
  }
  return files;
}

/** The marker of a `node_modules` folder that `bundle` wrote (and may replace). */
const marker = ".harness-tool-bundle.json";

/**
 * Installs the kept packages and their dependencies into `<dir>/node_modules` for this machine.
 * A `node_modules` there that `bundle` did not write is left as it is, and refused when a package
 * would have to change in it. Resolves to the number of packages and bytes written.
 */
export function installBeside(dir: string, kept: readonly KeptPackage[]): { packages: number; bytes: number } {
  const modules = path.join(dir, "node_modules");
  if (existsSync(path.join(modules, marker))) rmSync(modules, { recursive: true, force: true });
  if (kept.length === 0) return { packages: 0, bytes: 0 };
  if (existsSync(modules)) {
    // The project's own node_modules (a bundle written at the project's root): it already has them.
    const own = kept.every(
      (k) =>
        existsSync(path.join(modules, k.name, "package.json")) && realpathSync(path.join(modules, k.name)) === k.root,
    );
    if (own) return { packages: 0, bytes: 0 };
    throw new UnbundledPackageError(
      `${modules} exists and was not written by harness-tool bundle: remove it or bundle into another folder (--outfile), so ${kept[0]?.name} can be installed there`,
    );
  }
  const files = carriedFiles(kept, { prebuilds: `${process.platform}-${process.arch}`, hostBuild: true });
  let bytes = 0;
  for (const file of files) {
    const target = path.join(dir, file.key);
    mkdirSync(path.dirname(target), { recursive: true });
    copyFileSync(file.source, target);
    bytes += statSync(target).size;
  }
  const packages = new Set(
    files.map((f) => /^node_modules\/((?:@[^/]+\/)?[^/]+(?:\/node_modules\/(?:@[^/]+\/)?[^/]+)*)\//.exec(f.key)?.[1]),
  );
  writeFileSync(
    path.join(modules, marker),
    `${JSON.stringify({ writtenBy: "harness-tool bundle", packages: [...packages].sort() }, null, 2)}\n`,
  );
  return { packages: packages.size, bytes };
}
