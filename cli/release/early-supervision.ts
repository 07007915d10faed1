/**
 * Supervision decided before the provider loads (docs/runtime.md#the-supervisor): the executables
 * `harness-tool bundle` and `harness-tool release` write start with harness-tool's
 * `superviseBeforeLoading()` (the `harness-tool/supervisor` export, a few KiB) and load the
 * provider only when it returns false. The supervisor process then never reads the provider's
 * code: one module load instead of two between the kernel's spawn and its first reply.
 *
 * The supervisor code is bundled from the `harness-tool` the provider's entry resolves, and used
 * only when the provider's bundle holds that same copy's `serve()`: a program that does not serve
 * through harness-tool (a bare gRPC server, a runtime without the export) gets the plain launcher,
 * and serve() decides as it always did.
 */
import { accessSync, constants } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { runtimeRootFrom } from "../provider/runtime-sources.js";

/** What the launcher imports: the decision and the supervisor, nothing of the provider. */
export const supervisorSpecifier = "harness-tool/supervisor";

/** How the launcher is built. */
export interface EarlySupervisionBuild {
  /** The provider's entry: `harness-tool` is resolved from its folder, as the provider's bundle resolved it. */
  readonly entry: string;
  /** The provider bundle's inputs (esbuild's metafile keys, relative to `providerRoot`). */
  readonly providerInputs: readonly string[];
  /** The folder the provider's bundle was built in (its working directory). */
  readonly providerRoot: string;
  /** The export conditions the provider's bundle was built with. */
  readonly conditions: readonly string[];
  /**
   * `esm`: `source` is a module that imports `superviseBeforeLoading` from `harness-tool/supervisor`;
   * `iife`: a classic script assigning the export's functions to `var <globalName>`.
   */
  readonly format: "esm" | "iife";
  /** The launcher's source (`esm`); for `iife`, the export is bundled alone. */
  readonly source?: string;
  /** The name of the `iife` result. */
  readonly globalName?: string;
  /** Specifiers the launcher loads at run time (the bundle beside it). */
  readonly external?: readonly string[];
}

/** The serve module of the runtime whose supervisor entry is `supervisorFile` (dist/ or sources). */
function serveModuleBeside(supervisorFile: string): string {
  return path.join(path.dirname(path.dirname(supervisorFile)), `serve${path.extname(supervisorFile)}`);
}

/**
 * The launcher as one script (its supervisor inlined), or undefined when the provider does not
 * serve through the `harness-tool` that its entry's folder resolves (then supervision stays with
 * serve()).
 */
export async function bundleEarlySupervision(build: EarlySupervisionBuild): Promise<string | undefined> {
  const { build: esbuild } = await import("esbuild");
  const source =
    build.format === "esm"
      ? (build.source ?? "")
      : `export { superviseBeforeLoading } from ${JSON.stringify(supervisorSpecifier)};`;
  const entryDir = path.dirname(path.resolve(build.entry));
  // The comments esbuild writes name each file relative to this folder: the runtime's own, so the
  // launcher's bytes do not depend on where it is built (a single executable's checksum).
  const runtimeRoot = runtimeRootFrom(entryDir);
  if (runtimeRoot === undefined) return undefined;
  let result: Awaited<ReturnType<typeof esbuild<{ write: false; metafile: true }>>>;
  try {
    result = await esbuild({
      absWorkingDir: runtimeRoot,
      stdin: { contents: source, resolveDir: entryDir, sourcefile: "(the executable)", loader: "js" },
      bundle: true,
      write: false,
      outfile: "launcher.mjs",
      platform: "node",
      format: build.format,
      ...(build.globalName !== undefined ? { globalName: build.globalName } : {}),
      target: "node22",
      conditions: [...build.conditions],
      external: [...(build.external ?? [])],
      logLevel: "silent",
      metafile: true,
      // Not minified: the launcher is read by people who wonder what the kernel runs.
      legalComments: "none",
    });
  } catch {
    // No `harness-tool/supervisor` here (an older runtime, or none): serve() supervises.
    return undefined;
  }
  const supervisorFile = Object.keys(result.metafile.inputs)
    .map((input) => path.resolve(runtimeRoot, input))
    .find((file) => /[\\/]supervisor[\\/]supervise-before-loading\.[cm]?[jt]s$/.test(file));
  if (supervisorFile === undefined) return undefined;
  const serveModule = serveModuleBeside(supervisorFile);
  const servesHere = build.providerInputs.some((input) => path.resolve(build.providerRoot, input) === serveModule);
  return servesHere ? (result.outputFiles[0]?.text ?? undefined) : undefined;
}

/** `uname -sm` on each platform a supervisor package is published for. */
const unameOf: { readonly [platform: string]: string } = {
  "linux-x64": "Linux x86_64",
  "linux-arm64": "Linux aarch64",
  "darwin-x64": "Darwin x86_64",
  "darwin-arm64": "Darwin arm64",
};

/** The running platform's supervisor program, as the platform package installed it for the runtime `entry` resolves. */
export interface SupervisorProgram {
  /** `<os>-<cpu>`. */
  readonly platform: string;
  /** The installed binary. */
  readonly binary: string;
  /** What the bundle names its copy, beside the executable (the runtime looks for it there). */
  readonly fileName: string;
}

/** The installed supervisor program for this platform, or undefined (none installed, another platform, Windows). */
export function installedSupervisorProgram(entry: string): SupervisorProgram | undefined {
  const platform = `${process.platform}-${process.arch}`;
  const runtimeRoot = runtimeRootFrom(path.dirname(path.resolve(entry)));
  if (runtimeRoot === undefined || unameOf[platform] === undefined) return undefined;
  try {
    const manifest = createRequire(path.join(runtimeRoot, "package.json")).resolve(
      `@harness-tool/supervisor-${platform}/package.json`,
    );
    const binary = path.join(path.dirname(manifest), "bin", "harness-tool-supervisor");
    accessSync(binary, constants.X_OK);
    return { platform, binary, fileName: `harness-tool-supervisor-${platform}` };
  } catch {
    return undefined;
  }
}

/**
 * The executable's first two lines when it carries the supervisor program: a file both sh and Node
 * read. The kernel execs it through `#!/bin/sh`; the second line is, for sh, `:` and then, when the
 * environment wants supervision (the rule of runtime/supervisor/supervision-wanted.ts: the kernel's
 * cookie, not `HARNESS_TOOL_SUPERVISOR=off`, not already supervised, no program named by
 * HARNESS_TOOL_SUPERVISOR_BINARY) on the program's platform, an exec of the program beside it with
 * `node` and this file, else an exec of `node` with this file; for Node (which skips a `#!` line),
 * a string statement and a comment. The supervisor's start then costs no Node start.
 */
export function polyglotHead(
  program: SupervisorProgram,
  cookie: { readonly key: string; readonly value: string },
): string[] {
  const beside = `"\${0%/*}/${program.fileName}"`;
  const wanted = [
    `[ "\${${cookie.key}-}" = "${cookie.value}" ]`,
    '[ "${HARNESS_TOOL_SUPERVISOR-}" != off ]',
    '[ -z "${HARNESS_TOOL_SUPERVISOR_BINARY-}" ]',
    '[ "${HARNESS_TOOL_SUPERVISED-}" != "$PPID" ]',
    `[ -x ${beside} ]`,
    `[ "$(uname -sm)" = "${unameOf[program.platform]}" ]`,
  ].join(" && ");
  return ["#!/bin/sh", `':' //; if ${wanted}; then exec ${beside} node "$0" "$@"; fi; exec node "$0" "$@"`];
}
