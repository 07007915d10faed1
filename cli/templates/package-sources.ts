/**
 * Where a new provider repository installs harness-tool's three packages from: the runtime
 * (`harness-tool`, a dependency), the protoc plugin and the CLI (devDependencies). One answer names
 * all three: an npm version range, or a folder holding the three tarballs `npm pack` writes.
 */
import { existsSync, statSync } from "node:fs";
import path from "node:path";

/** The npm names of harness-tool's packages. */
export const harnessToolPackages = {
  runtime: "harness-tool",
  plugin: "@harness-tool/protoc-gen-harness-tool",
  cli: "@harness-tool/cli",
} as const;

/** Which of the three packages. */
export type HarnessToolPackage = keyof typeof harnessToolPackages;

/** A package.json spec for each of the three packages. */
export type PackageSpecs = { readonly [P in HarnessToolPackage]: string };

/** The file name `npm pack` gives a package's tarball: the scope's @ dropped, / as -. */
export function tarballName(packageName: string, version: string): string {
  return `${packageName.replace(/^@/, "").replace("/", "-")}-${version}.tgz`;
}

/** Thrown for a source that cannot give the three packages; the message says what is missing. */
export class PackageSourceError extends Error {}

/**
 * The specs for `source`: a version range applies to all three packages; `file:<folder>` (or
 * `file:<one of the tarballs>`, meaning its folder) must hold all three tarballs of `version`.
 * A relative folder is taken from the working directory and, given the new `repository`'s
 * folder, written relative to it (`file:../tarballs/harness-tool-0.1.0.tgz`), so the repository
 * can be committed, moved with its tarballs, or installed by a teammate; an absolute one stays
 * absolute, as it was written.
 */
export function packageSpecs(source: string, version: string, repository?: string): PackageSpecs {
  const text = source.trim();
  if (text === "")
    throw new PackageSourceError(
      "the harness-tool source is empty: give a version range or file:<folder with the .tgz files>",
    );
  if (!text.startsWith("file:")) return { runtime: text, plugin: text, cli: text };
  const written = text.slice("file:".length);
  let folder = path.resolve(written);
  if (existsSync(folder) && statSync(folder).isFile()) folder = path.dirname(folder);
  if (!existsSync(folder))
    throw new PackageSourceError(`${folder} does not exist: give the folder that holds the harness-tool tarballs`);
  const specs = {} as Record<HarnessToolPackage, string>;
  const missing: string[] = [];
  for (const [which, name] of Object.entries(harnessToolPackages) as [HarnessToolPackage, string][]) {
    const tarball = path.join(folder, tarballName(name, version));
    if (!existsSync(tarball)) missing.push(path.basename(tarball));
    else if (repository === undefined || path.isAbsolute(written)) specs[which] = `file:${tarball}`;
    else specs[which] = `file:${path.relative(repository, tarball).split(path.sep).join("/")}`;
  }
  if (missing.length > 0) {
    throw new PackageSourceError(
      `${folder} lacks ${missing.join(", ")} (\`npm run pack:all\` in a harness-tool checkout writes all three)`,
    );
  }
  return specs;
}

/**
 * The @bufbuild/protobuf release harness-tool is built and tested with: the floor of the runtime's
 * peer range (test/cli/package-sources.test.ts holds the two equal).
 */
export const protobufVersion = "2.17.0";
