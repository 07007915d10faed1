/**
 * Packs harness-tool's three packages as a release would: `npm run pack:all` (each package's
 * prepack builds it) in a copy of the repository, so no build ever lands in the checkout. The copy
 * shares the checkout's installed dependencies; its workspace links point at the copy's own
 * folders, so each package builds against its siblings' fresh builds.
 */
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from "node:fs";
import path from "node:path";
import { harnessToolPackages, tarballName, type HarnessToolPackage } from "../../cli/templates/package-sources.js";
import { repoRoot } from "./buf.js";

/** The three tarballs, by package, and the folder that holds them. */
export type PackedPackages = { readonly [P in HarnessToolPackage]: string } & {
  readonly dir: string;
  readonly version: string;
};

/** Which node_modules entries are this repository's workspaces, by the folder they link to. */
const workspaceFolders: { readonly [P in HarnessToolPackage]: string } = {
  runtime: "runtime",
  plugin: "plugin",
  cli: "cli",
};

/** Packs into `dest` (created if needed); throws with npm's output when a build or the pack fails. */
export function packWorkspaces(dest: string): PackedPackages {
  const copy = path.join(dest, "source");
  mkdirSync(dest, { recursive: true });
  cpSync(repoRoot, copy, {
    recursive: true,
    filter: (source) =>
      !/[/\\](node_modules|\.git|dist|tmp)$/.test(source) &&
      !source.endsWith(".tgz") &&
      source !== path.join(repoRoot, "plugin/proto"),
  });
  const modules = path.join(copy, "node_modules");
  mkdirSync(modules);
  const linkedHere = new Map<string, string>(
    Object.entries(harnessToolPackages).map(([which, name]) => [
      name,
      path.join(copy, workspaceFolders[which as HarnessToolPackage]),
    ]),
  );
  for (const entry of readdirSync(path.join(repoRoot, "node_modules"))) {
    const from = path.join(repoRoot, "node_modules", entry);
    if (entry.startsWith("@") && [...linkedHere.keys()].some((n) => n.startsWith(`${entry}/`))) {
      mkdirSync(path.join(modules, entry));
      for (const scoped of readdirSync(from)) {
        const name = `${entry}/${scoped}`;
        symlinkSync(linkedHere.get(name) ?? path.join(from, scoped), path.join(modules, entry, scoped));
      }
    } else {
      symlinkSync(linkedHere.get(entry) ?? from, path.join(modules, entry));
    }
  }
  const run = spawnSync("npm", ["run", "pack:all", "--", "--pack-destination", dest], { cwd: copy, encoding: "utf8" });
  if (run.status !== 0) throw new Error(`npm run pack:all failed (${run.status}):\n${run.stdout}\n${run.stderr}`);
  const { version } = JSON.parse(readFileSync(path.join(copy, "runtime/package.json"), "utf8")) as { version: string };
  const tarballs = {} as Record<HarnessToolPackage, string>;
  for (const [which, name] of Object.entries(harnessToolPackages) as [HarnessToolPackage, string][]) {
    const file = path.join(dest, tarballName(name, version));
    if (!existsSync(file)) throw new Error(`npm run pack:all wrote no ${path.basename(file)}:\n${run.stdout}`);
    tarballs[which] = file;
  }
  return { ...tarballs, dir: dest, version };
}
