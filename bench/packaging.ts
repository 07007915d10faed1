/**
 * Suite 9, packaging: what a provider author downloads and ships. harness-tool's three packages
 * packed as a release is (test/support/pack-workspaces.ts: each package's prepack builds it); the
 * runtime's tarball against @bufbuild/protobuf's, the anchor with no dependencies; a provider
 * repository as `harness-tool init` writes it, installed from those tarballs with
 * `npm install --omit=dev`, against a project holding only what serve() needs (@bufbuild/protobuf
 * and @grpc/grpc-js); and the scaffold's bundled dist/provider.bundle.mjs (`harness-tool bundle`)
 * against the bare gRPC tool server bundled the same way.
 */
import { spawnSync } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { harnessToolPackages, protobufVersion, type HarnessToolPackage } from "../cli/templates/package-sources.js";
import { packWorkspaces, type PackedPackages } from "../test/support/pack-workspaces.js";
import { createWorkspace, repoRoot } from "./bench-workspace.js";
import { absolute, compared, failedFigure, type Figure, type SuiteReport } from "./report.js";
import type { Suite, SuiteContext } from "./suite.js";

/** Bytes as kB (1000) with one decimal, as npm reports tarballs. */
const formatKB = (bytes: number) => `${(bytes / 1000).toFixed(1)} kB`;
/** Bytes as MB (10^6) with two decimals. */
const formatMB = (bytes: number) => `${(bytes / 1e6).toFixed(2)} MB`;

/** The packaging targets (docs/benchmarks.md, packaging). */
const targets = { runtimeTarball: 150_000, providerInstall: 20_000_000, bundle: 1_300_000 } as const;

/**
 * A size held to an absolute limit (the verdict), shown with its ratio to a baseline of the same
 * run (for context: the limits are absolute).
 */
function within(
  name: string,
  bytes: number,
  format: (b: number) => string,
  baseline: { label: string; value: number },
  limit: number,
): Figure {
  return {
    ...compared(name, bytes, format, baseline),
    target: `≤ ${format(limit)}`,
    verdict: bytes <= limit ? "pass" : "miss",
  };
}

/** Runs a command; throws with its output when it fails. */
function run(command: string, args: readonly string[], cwd: string, timeoutMs = 600_000): string {
  const result = spawnSync(command, args, {
    cwd,
    encoding: "utf8",
    timeout: timeoutMs,
    env: { ...process.env, npm_config_audit: "false", npm_config_fund: "false", npm_config_update_notifier: "false" },
  });
  if (result.status !== 0)
    throw new Error(
      `${command} ${args.join(" ")} failed in ${cwd} (${result.status ?? result.signal}):\n${result.stdout}\n${result.stderr}`,
    );
  return result.stdout;
}

/** A node_modules folder's size: the bytes of every file (links not followed) and the packages in it. */
export function installSize(nodeModules: string): { bytes: number; packages: number } {
  let bytes = 0;
  let packages = 0;
  const walk = (dir: string, packageLevel: boolean) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isSymbolicLink()) continue;
      if (entry.isDirectory()) {
        const scope = packageLevel && entry.name.startsWith("@");
        if (packageLevel && !scope && entry.name !== ".bin" && existsSync(path.join(full, "package.json"))) packages++;
        walk(full, scope || entry.name === "node_modules");
      } else if (entry.isFile()) bytes += lstatSync(full).size;
    }
  };
  if (existsSync(nodeModules)) walk(nodeModules, true);
  return { bytes, packages };
}

/** A registry package's tarball size, from `npm pack` into `dir`. */
function registryTarball(spec: string, dir: string): number {
  const [info] = JSON.parse(run("npm", ["pack", spec, "--json", "--pack-destination", dir], dir)) as {
    filename: string;
  }[];
  if (!info) throw new Error(`npm pack ${spec} printed nothing`);
  return statSync(path.join(dir, info.filename)).size;
}

/** The packaging suite. */
export const packagingSuite: Suite = {
  id: "packaging",
  title: "9. Packaging (tarballs, a provider's install, the bundle)",
  async run(context: SuiteContext): Promise<SuiteReport> {
    const figures: Figure[] = [];
    const notes: string[] = [];
    const ws = createWorkspace("packaging");
    context.log("packing the three packages (each builds in its prepack)");
    let packed: PackedPackages;
    try {
      packed = packWorkspaces(path.join(ws.root, "packed"));
    } catch (error) {
      return report(
        this,
        [failedFigure("the three tarballs", error instanceof Error ? error.message.slice(0, 300) : String(error))],
        notes,
      );
    }

    // Tarballs: the runtime against the anchor, the other two as figures.
    const anchor = registryTarball(`@bufbuild/protobuf@${protobufVersion}`, path.join(ws.root, "packed"));
    const sizes = Object.fromEntries(
      (Object.keys(harnessToolPackages) as HarnessToolPackage[]).map((p) => [p, statSync(packed[p]).size]),
    ) as Record<HarnessToolPackage, number>;
    figures.push(
      within(
        "runtime tarball (harness-tool)",
        sizes.runtime,
        formatKB,
        { label: `@bufbuild/protobuf ${protobufVersion}`, value: anchor },
        targets.runtimeTarball,
      ),
      absolute(
        "plugin tarball (@harness-tool/protoc-gen-harness-tool: one bundle, notices, protos)",
        formatKB(sizes.plugin),
      ),
      absolute("CLI tarball (@harness-tool/cli)", formatKB(sizes.cli)),
    );

    // The floor: a project with only what serve() needs.
    const floorDir = path.join(ws.root, "floor");
    mkdirSync(floorDir);
    const runtimeManifest = JSON.parse(readFileSync(path.join(repoRoot, "runtime/package.json"), "utf8")) as {
      dependencies: Record<string, string>;
    };
    const grpc = runtimeManifest.dependencies["@grpc/grpc-js"] ?? "^1";
    writeFileSync(
      path.join(floorDir, "package.json"),
      JSON.stringify({
        name: "floor",
        private: true,
        dependencies: { "@bufbuild/protobuf": `^${protobufVersion}`, "@grpc/grpc-js": grpc },
      }),
    );
    context.log("installing the floor (@bufbuild/protobuf, @grpc/grpc-js)");
    run("npm", ["install", "--omit=dev", "--ignore-scripts", "--no-package-lock"], floorDir);
    const floor = installSize(path.join(floorDir, "node_modules"));

    // A provider repository as init writes it, from the tarballs.
    const repo = path.join(ws.root, "provider");
    const cli = path.join(repoRoot, "cli/harness-tool.mjs");
    run(
      process.execPath,
      [cli, "init", repo, "--name", "notes", "--yes", "--harness-tool", `file:${packed.dir}`],
      ws.root,
    );
    context.log("installing the scaffold with --omit=dev");
    run("npm", ["install", "--omit=dev", "--ignore-scripts"], repo);
    const lean = installSize(path.join(repo, "node_modules"));
    figures.push(
      within(
        `provider repository, npm install --omit=dev (${lean.packages} packages)`,
        lean.bytes,
        formatMB,
        { label: `floor (${floor.packages} packages)`, value: floor.bytes },
        targets.providerInstall,
      ),
    );

    // The whole repository (dev tools included), then its bundle.
    context.log("installing the scaffold's devDependencies, generating, bundling");
    run("npm", ["install"], repo);
    const full = installSize(path.join(repo, "node_modules"));
    figures.push(
      absolute(
        `provider repository, npm install with devDependencies (${full.packages} packages)`,
        formatMB(full.bytes),
      ),
    );
    try {
      run("npm", ["run", "generate"], repo);
      run(
        path.join(repo, "node_modules/.bin/harness-tool"),
        ["bundle", "src/main.ts", "--outfile", "dist/provider.mjs"],
        repo,
      );
      const bundle = statSync(path.join(repo, "dist/provider.bundle.mjs")).size;
      run(
        path.join(repo, "node_modules/.bin/harness-tool"),
        [
          "bundle",
          path.join(repoRoot, "bench/fixtures/bare-tool-server.ts"),
          "--outfile",
          path.join(ws.root, "bare/provider.mjs"),
        ],
        repo,
      );
      const bare = statSync(path.join(ws.root, "bare/provider.bundle.mjs")).size;
      figures.push(
        within(
          "scaffold's dist/provider.bundle.mjs (harness-tool bundle)",
          bundle,
          formatKB,
          { label: "bare gRPC tool server, bundled alike", value: bare },
          targets.bundle,
        ),
      );
    } catch (error) {
      figures.push(
        failedFigure(
          "scaffold's dist/provider.bundle.mjs",
          error instanceof Error ? error.message.slice(0, 300) : String(error),
        ),
      );
    }
    return report(this, figures, notes);
  },
};

function report(suite: Suite, figures: Figure[], notes: string[]): SuiteReport {
  return {
    id: suite.id,
    title: suite.title,
    method: [
      "Tarballs: `npm run pack:all` in a copy of the repository (each package's prepack builds it); sizes are the .tgz files' bytes; the anchor is `npm pack @bufbuild/protobuf` from the registry.",
      "Installs: `harness-tool init --yes --harness-tool file:<the tarballs>` writes the scaffold (all four example tools), `npm install --omit=dev --ignore-scripts` installs it; size is the bytes of every file under node_modules, packages are folders with a package.json. The floor installs @bufbuild/protobuf and @grpc/grpc-js alone the same way.",
      "Bundle: after a full `npm install` and `npm run generate`, the repository's own `harness-tool bundle src/main.ts` (esbuild, whitespace and syntax minified, names kept); the baseline is bench/fixtures/bare-tool-server.ts bundled by the same command.",
      "Targets: runtime tarball ≤ 150 kB, provider repository --omit=dev ≤ 20 MB, bundle ≤ 1.3 MB (the single package's was 1,381,938 B).",
    ],
    figures,
    notes,
  };
}
