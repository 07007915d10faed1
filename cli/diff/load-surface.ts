/**
 * A tool surface (the GetSchemaResponse the kernel sees) from what `harness-tool diff` is given:
 *
 * - `<file>.json`: a GetSchema snapshot (`harness-tool schema --json`, the scaffold's schema/tools.json);
 * - `git:<ref>:<file>.json`: that snapshot as commit `<ref>` has it;
 * - `git:<ref>`: the protos at commit `<ref>` (the buf workspace of the repository the command runs
 *   in), generated with the repository's protoc-gen-harness-tool and served, so the surface is what
 *   that version's provider would answer;
 * - `protos:<dir>`: the same from a buf workspace folder on disk;
 * - anything else: a provider, as every command takes it (cli/provider/), launched and asked.
 */
import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { fromJson, type JsonValue } from "@bufbuild/protobuf";
import {
  type GetSchemaResponse,
  GetSchemaResponseSchema,
} from "harness-tool/generated/pluggableharness/tool/v1/tool_pb.js";
import { launchProvider } from "../provider/launch-provider.js";
import { renderVersionsOf } from "./render-versions.js";
import { providerTarget } from "../provider/provider-target.js";
import { UsageError } from "../terminal/usage-error.js";

/** A surface and how to name it in output. */
export interface LoadedSurface {
  readonly label: string;
  readonly surface: GetSchemaResponse;
  /** The schema_versions its Render decodes (render-versions.ts); undefined where that cannot be told (protos). */
  readonly renderVersions?: readonly string[];
}

/**
 * The key a snapshot records the rendered schema_versions under, beside GetSchemaResponse's own
 * fields (which carry no such thing): `"harnessToolRenderVersions": ["1", "2"]`.
 */
export const renderVersionsKey = "harnessToolRenderVersions";

/** Parses a GetSchema snapshot, with the rendered versions it records; `where` names it in the error. */
export function parseSnapshot(text: string, where: string): Omit<LoadedSurface, "label"> {
  const wrong = (why: string) =>
    new UsageError(`${where} is not a GetSchema snapshot (harness-tool schema --json writes one): ${why}`);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw wrong((e as Error).message);
  }
  const { [renderVersionsKey]: versions, ...rest } = (typeof json === "object" && json !== null ? json : {}) as Record<
    string,
    unknown
  >;
  if (versions !== undefined && !(Array.isArray(versions) && versions.every((v) => typeof v === "string")))
    throw wrong(`${renderVersionsKey} is not a list of strings`);
  try {
    const surface = fromJson(GetSchemaResponseSchema, rest as JsonValue, { ignoreUnknownFields: false });
    return { surface, ...(versions !== undefined ? { renderVersions: versions as string[] } : {}) };
  } catch (e) {
    throw wrong((e as Error).message);
  }
}

/** How long one `git` or `buf generate` that diff runs may take before it is killed (tests lower it). */
export const diffToolBounds = { timeoutMs: 120_000 };

/** The one-line error for a tool that ran past diffToolBounds, or undefined when `error` is another. */
function pastBound(what: string, tool: string, error: Error | undefined): UsageError | undefined {
  if ((error as NodeJS.ErrnoException | undefined)?.code !== "ETIMEDOUT") return undefined;
  const seconds = diffToolBounds.timeoutMs / 1000;
  return new UsageError(
    `${what}: ${tool} did not finish within ${seconds}s and was killed (a lock held or a network fetch hanging? run it yourself to see)`,
  );
}

/** `git <args>` in `cwd`; its stdout, or a UsageError with git's first line of complaint. */
function git(cwd: string, args: readonly string[], what: string): Buffer {
  const run = spawnSync("git", args, {
    cwd,
    maxBuffer: 256 * 1024 * 1024,
    timeout: diffToolBounds.timeoutMs,
    killSignal: "SIGKILL",
  });
  const late = pastBound(what, `git ${args[0] ?? ""}`, run.error);
  if (late) throw late;
  if (run.error) throw new UsageError(`${what}: git is not installed: install git, or give a .json snapshot`);
  if (run.status !== 0) throw new UsageError(`${what}: ${String(run.stderr).trim().split("\n")[0] ?? "git failed"}`);
  return run.stdout;
}

/** The nearest folder at or above `from` holding `name`, or undefined. */
function nearest(from: string, name: string): string | undefined {
  for (let dir = path.resolve(from); ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, name))) return dir;
    if (path.dirname(dir) === dir) return undefined;
  }
}

/** `module:` paths of a buf.yaml (v2), and the input directory of a buf.gen.yaml. */
function bufModules(bufYaml: string): string[] {
  return [...bufYaml.matchAll(/^\s*-\s*path:\s*(\S+)\s*$/gm)].map((m) => m[1] as string);
}

/** What the workspace generates: its buf.gen.yaml's input directory, else its first module. */
function generateInput(workspace: string): string {
  const read = (file: string) =>
    existsSync(path.join(workspace, file)) ? readFileSync(path.join(workspace, file), "utf8") : "";
  return (
    /^\s*-\s*directory:\s*(\S+)\s*$/m.exec(read("buf.gen.yaml"))?.[1] ?? bufModules(read("buf.yaml"))[0] ?? "proto"
  );
}

/**
 * Generates the buf workspace `workspace` with `projectRoot`'s buf and protoc-gen-harness-tool
 * (target=ts) into a folder under the project's node_modules, so the generated code resolves
 * `harness-tool` as the provider does; serves the one provider it finds from a main beside it,
 * launched as every command launches a `.ts` entry, and asks it for its surface.
 */
async function surfaceFromWorkspace(workspace: string, label: string, projectRoot: string): Promise<GetSchemaResponse> {
  const bin = (name: string) => path.join(projectRoot, "node_modules/.bin", name);
  for (const tool of ["buf", "protoc-gen-harness-tool"]) {
    if (!existsSync(bin(tool)))
      throw new UsageError(
        `${label}: ${bin(tool)} is missing: run npm install (the provider repository's devDependencies bring it)`,
      );
  }
  const cache = path.join(projectRoot, "node_modules/.cache/harness-tool-diff");
  mkdirSync(cache, { recursive: true });
  const out = mkdtempSync(path.join(cache, "surface-"));
  try {
    const template = path.join(out, "buf.gen.yaml");
    writeFileSync(
      template,
      JSON.stringify({
        version: "v2",
        plugins: [
          {
            local: [process.execPath, bin("protoc-gen-harness-tool")],
            strategy: "all",
            out: path.join(out, "gen"),
            opt: ["target=ts", "import_extension=js"],
          },
        ],
      }),
    );
    const input = generateInput(workspace);
    const run = spawnSync(bin("buf"), ["generate", input, "--template", template], {
      cwd: workspace,
      encoding: "utf8",
      timeout: diffToolBounds.timeoutMs,
      killSignal: "SIGKILL",
    });
    const late = pastBound(label, "buf generate", run.error);
    if (late) throw late;
    if (run.status !== 0)
      throw new UsageError(`${label}: buf generate failed: ${(run.stderr || String(run.error)).trim().split("\n")[0]}`);
    // ES modules, as the generated code and the main below are written.
    writeFileSync(path.join(out, "package.json"), '{ "type": "module" }\n');
    const main = path.join(out, "main.ts");
    writeFileSync(main, servingMain(out, label));
    const launched = await launchProvider(providerTarget(main));
    try {
      return await launched.getSchema({ timeoutMs: 10_000 });
    } finally {
      await launched.kill();
    }
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

/** A main serving the one provider factory (`create<Name>Provider`) generated under `out`, with no handlers. */
function servingMain(out: string, label: string): string {
  const factories: { file: string; name: string }[] = [];
  const visit = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) visit(full);
      else if (entry.name.endsWith("_tool.ts")) {
        for (const m of readFileSync(full, "utf8").matchAll(/^export function (create\w+Provider)\(/gm))
          factories.push({ file: full, name: m[1] as string });
      }
    }
  };
  if (existsSync(path.join(out, "gen"))) visit(path.join(out, "gen"));
  const [only, ...more] = factories;
  if (!only)
    throw new UsageError(
      `${label}: the protos declare no provider (a service with the harnesstool.v1.provider option)`,
    );
  if (more.length > 0)
    throw new UsageError(
      `${label}: the protos declare ${factories.length} providers (${factories.map((f) => f.name).join(", ")}); diff compares one`,
    );
  const specifier = `./${path.relative(out, only.file).split(path.sep).join("/").replace(/\.ts$/, ".js")}`;
  // GetSchema never calls a handler: each one says so if it ever were. The hooks are a table, one
  // observer per point the proto claims, since the factory checks them against supported_hook_points.
  const hooks = Object.fromEntries(
    claimedHookPoints(readFileSync(only.file, "utf8")).map((point) => [point, { observe: "unanswered" }]),
  );
  return [
    'import { serve } from "harness-tool";',
    `import { ${only.name} } from ${JSON.stringify(specifier)};`,
    'const unanswered = () => { throw new Error("harness-tool diff serves the schema only"); };',
    `const hooks = ${JSON.stringify(hooks).replaceAll('"unanswered"', "unanswered")};`,
    'const handlers = new Proxy({}, { get: (_, key) => (key === "hooks" ? hooks : unanswered) });',
    `await serve(${only.name}(handlers as never));`,
    "",
  ].join("\n");
}

/**
 * The hook point names a generated factory's handlers must subscribe to (its proto's
 * supported_hook_points), read from the generated TypeScript: `HookSubscriptionsFor<"a" | "b", …>`.
 */
export function claimedHookPoints(generated: string): string[] {
  const union = /HookSubscriptionsFor\s*<([^,>]*),/.exec(generated)?.[1] ?? "";
  return [...union.matchAll(/"([a-z-]+)"/g)].map((m) => m[1] as string);
}

/** The protos of commit `ref` of the repository around `cwd`, as a buf workspace in a temp folder. */
async function surfaceAtRef(ref: string, cwd: string): Promise<GetSchemaResponse> {
  const label = `git:${ref}`;
  const top = git(cwd, ["rev-parse", "--show-toplevel"], label).toString("utf8").trim();
  const workspace = nearest(cwd, "buf.yaml") ?? top;
  const prefix = path.relative(top, workspace).split(path.sep).join("/");
  const at = (file: string) => (prefix === "" ? file : `${prefix}/${file}`);
  const bufYaml = git(top, ["show", `${ref}:${at("buf.yaml")}`], label).toString("utf8");
  const projectRoot = nearest(workspace, "node_modules") ?? workspace;
  const cache = path.join(projectRoot, "node_modules/.cache/harness-tool-diff");
  mkdirSync(cache, { recursive: true });
  const scratch = mkdtempSync(path.join(cache, "ref-"));
  try {
    writeFileSync(path.join(scratch, "buf.yaml"), bufYaml);
    const genYaml = spawnSync("git", ["show", `${ref}:${at("buf.gen.yaml")}`], {
      cwd: top,
      timeout: diffToolBounds.timeoutMs,
      killSignal: "SIGKILL",
    });
    if (genYaml.status === 0) writeFileSync(path.join(scratch, "buf.gen.yaml"), genYaml.stdout);
    for (const module of bufModules(bufYaml)) {
      // A module whose protos the commit holds comes from the commit; one it does not (under
      // node_modules, or a link to harness-tool's protos) from here.
      const listed = git(top, ["ls-tree", "-r", "--name-only", ref, "--", at(module)], label)
        .toString("utf8")
        .split("\n");
      const protos = listed.filter((f) => f.endsWith(".proto"));
      if (protos.length === 0) {
        mkdirSync(path.dirname(path.join(scratch, module)), { recursive: true });
        symlinkSync(path.resolve(workspace, module), path.join(scratch, module));
        continue;
      }
      for (const file of protos) {
        const target = path.join(scratch, path.relative(prefix, file));
        mkdirSync(path.dirname(target), { recursive: true });
        writeFileSync(target, git(top, ["show", `${ref}:${file}`], label));
      }
    }
    return await surfaceFromWorkspace(scratch, label, projectRoot);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * Loads what `spec` names, relative to `cwd`; a launched provider's rendered versions are asked of
 * it, checking those `recorded` (the baseline's) when it does not name them.
 */
export async function loadSurface(
  spec: string,
  cwd: string = process.cwd(),
  recorded?: readonly string[],
): Promise<LoadedSurface> {
  const gitSnapshot = /^git:([^:]+):(.+\.json)$/.exec(spec);
  if (gitSnapshot) {
    const [, ref, file] = gitSnapshot as unknown as [string, string, string];
    const top = git(cwd, ["rev-parse", "--show-toplevel"], spec).toString("utf8").trim();
    const inRepo = path.relative(top, path.resolve(cwd, file)).split(path.sep).join("/");
    return { label: spec, ...parseSnapshot(git(top, ["show", `${ref}:${inRepo}`], spec).toString("utf8"), spec) };
  }
  if (spec.startsWith("git:")) return { label: spec, surface: await surfaceAtRef(spec.slice(4), cwd) };
  if (spec.startsWith("protos:")) {
    const dir = path.resolve(cwd, spec.slice(7));
    if (!existsSync(path.join(dir, "buf.yaml")))
      throw new UsageError(`${spec}: ${dir} has no buf.yaml: name the buf workspace folder`);
    return { label: spec, surface: await surfaceFromWorkspace(dir, spec, nearest(dir, "node_modules") ?? dir) };
  }
  if (spec.endsWith(".json")) {
    if (!existsSync(path.resolve(cwd, spec)))
      throw new UsageError(
        `${spec} does not exist: write a snapshot with harness-tool schema <provider> --json > ${spec}`,
      );
    return { label: spec, ...parseSnapshot(readFileSync(path.resolve(cwd, spec), "utf8"), spec) };
  }
  const launched = await launchProvider(providerTarget(spec));
  try {
    const surface = await launched.getSchema({ timeoutMs: 10_000 });
    const renderVersions = await renderVersionsOf(launched, recorded);
    return { label: spec, surface, ...(renderVersions !== undefined ? { renderVersions } : {}) };
  } finally {
    await launched.kill();
  }
}
