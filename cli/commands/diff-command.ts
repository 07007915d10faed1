/**
 * `harness-tool diff <old> <new>`: what changed between two versions of a provider's tool surface,
 * judged for the model, the result's consumers, the kernel's gate and the operator's agent.hcl;
 * exit 1 while a breaking or risk-raising change is not accepted with `--allow`.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { toJson } from "@bufbuild/protobuf";
import { GetSchemaResponseSchema } from "harness-tool/generated/pluggableharness/tool/v1/tool_pb.js";
import { defineCommand } from "./command-definition.js";
import { type LoadedSurface, loadSurface, renderVersionsKey } from "../diff/load-surface.js";
import {
  changeClasses,
  diffRenderVersions,
  diffSurfaces,
  isBlocking,
  type SurfaceChange,
} from "../diff/surface-diff.js";
import { renderTable } from "../terminal/table.js";
import { terminalWidth } from "../terminal/terminal-width.js";
import { UsageError } from "../terminal/usage-error.js";

/** The table of changes, `width` columns wide: severity (or "allowed"), change, subject, detail. */
export function renderChangesTable(
  changes: readonly SurfaceChange[],
  allowed: ReadonlySet<string>,
  width = 80,
): string {
  if (changes.length === 0) return "no changes\n";
  return renderTable(
    ["severity", "change", "subject", "detail"],
    changes.map((c) => [
      c.severity !== "compatible" && allowed.has(c.id) ? "allowed" : c.severity,
      c.class,
      c.subject,
      c.detail,
    ]),
    {
      width,
      overflow: ["truncate", "truncate", "wrap", "wrap"],
      shrink: [
        { column: 3, downTo: 16 },
        { column: 2, downTo: 16 },
        { column: 1, downTo: 14 },
      ],
    },
  );
}

/**
 * Writes `loaded` as a GetSchema snapshot, as `harness-tool schema --json` prints it, with the
 * schema_versions its Render decodes when it has any.
 */
function writeSnapshot(file: string, loaded: LoadedSurface): void {
  mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const json = toJson(GetSchemaResponseSchema, loaded.surface) as Record<string, unknown>;
  const versions = loaded.renderVersions ?? [];
  writeFileSync(
    file,
    `${JSON.stringify(versions.length > 0 ? { ...json, [renderVersionsKey]: versions } : json, null, 2)}\n`,
  );
}

/** Whether `spec` names a snapshot file (not git:, protos: or a provider). */
function isFilePath(spec: string): boolean {
  return spec.endsWith(".json") && !spec.startsWith("git:");
}

/** What `--allow` gave: ids separated by commas, each given once or more. */
function allowedIds(values: readonly string[]): Set<string> {
  const ids = values
    .flatMap((v) => v.split(","))
    .map((id) => id.trim())
    .filter((id) => id !== "");
  for (const id of ids) {
    const cls = id.slice(0, id.indexOf(":"));
    if (!id.includes(":") || !(cls in changeClasses))
      throw new UsageError(
        `--allow ${id} is not a change id (<change>:<subject>, as the table's change and subject columns show)`,
      );
  }
  return new Set(ids);
}

/** Options of diffCommand. */
export interface DiffOptions {
  readonly json: boolean;
  readonly allow: readonly string[];
  /** Write the new surface to this snapshot file when nothing blocks. */
  readonly update?: string | undefined;
  /**
   * When `old` is a file that does not exist, say so and exit 0 writing nothing (even with
   * `update`): no release recorded a baseline yet (the scaffold's `npm run build`).
   */
  readonly baselineOptional?: boolean | undefined;
  readonly out: NodeJS.WritableStream;
  readonly err: NodeJS.WritableStream;
}

/** Runs the command; resolves to the exit code (1 while a blocking change is not allowed). */
export async function diffCommand(oldSpec: string, newSpec: string, options: DiffOptions): Promise<number> {
  const allowed = allowedIds(options.allow);
  if (options.baselineOptional && isFilePath(oldSpec) && !existsSync(oldSpec)) {
    // Nothing shipped yet: the first release (or an explicit snapshot) records the baseline.
    options.err.write(
      `harness-tool diff: no baseline ${oldSpec} yet, nothing to guard: the first release records it (npm run release, or npm run snapshot)\n`,
    );
    return 0;
  }
  if (options.update !== undefined && path.resolve(options.update) === path.resolve(oldSpec) && !existsSync(oldSpec)) {
    // The first snapshot: nothing to compare with yet.
    writeSnapshot(options.update, await loadSurface(newSpec));
    options.out.write(`wrote ${options.update}, the first snapshot of the tool surface: commit it\n`);
    return 0;
  }
  const before = await loadSurface(oldSpec);
  const after = await loadSurface(newSpec, process.cwd(), before.renderVersions);
  const changes = [
    ...diffSurfaces(before.surface, after.surface),
    ...diffRenderVersions(before.renderVersions, after.renderVersions),
  ];
  const blocking = changes.filter((c) => isBlocking(c, allowed));
  const unknown = [...allowed].filter((id) => !changes.some((c) => c.id === id));
  if (options.json) {
    const report = {
      old: before.label,
      new: after.label,
      changes: changes.map((c) => ({ ...c, allowed: allowed.has(c.id) })),
      blocking: blocking.map((c) => c.id),
    };
    options.out.write(`${JSON.stringify(report, null, 2)}\n`);
  } else {
    options.out.write(renderChangesTable(changes, allowed, terminalWidth(options.out)));
  }
  if (unknown.length > 0)
    options.err.write(`harness-tool diff: --allow names ${unknown.join(", ")}, which this diff does not have\n`);
  if (blocking.length > 0) {
    options.err.write(
      `harness-tool diff: ${blocking.length} breaking or risk-raising change${blocking.length === 1 ? "" : "s"}: accept with --allow ${blocking.map((c) => c.id).join(",")}\n`,
    );
    return 1;
  }
  if (options.update !== undefined) {
    writeSnapshot(options.update, after);
    if (!options.json) options.out.write(`wrote ${options.update}\n`);
  }
  return 0;
}

/** The command line of `harness-tool diff`. */
export const diffCommandDefinition = defineCommand({
  name: "diff",
  summary: "compare two versions of a provider's tool surface; fail on breaking changes",
  description:
    "Each side is a GetSchema snapshot (.json, as harness-tool schema --json writes it; git:<ref>:<file>.json for a committed one), git:<ref> (the protos at that commit, generated with this repository's protoc-gen-harness-tool), protos:<dir> (a buf workspace folder) or a provider as every command takes it. Lists tools added and removed; kind, risk, concurrency, timeout, terminates_turn and idempotent changes; input changes that break the model's calls, output changes that break consumers, and config attributes added as required or with sensitive flipped. Exit 1 while a breaking or risk-raising change is not named by --allow.",
  positionals: [{ name: "old" }, { name: "new" }],
  flags: {
    json: {
      type: "boolean",
      description: "print the changes as JSON (each with its id, class, severity and whether it is allowed)",
    },
    allow: {
      type: "string",
      value: "id,...",
      multiple: true,
      description: "accept these breaking or risk-raising changes (ids as <change>:<subject>)",
    },
    update: {
      type: "string",
      value: "file.json",
      description:
        "when nothing blocks, write the new surface there (the scaffold's npm run build keeps schema/tools.json so); when <old> is that file and does not exist, write the first snapshot",
    },
    "baseline-optional": {
      type: "boolean",
      description:
        "when <old> is a .json file that does not exist, say there is no baseline yet and exit 0, writing nothing (the scaffold's build, before its first release)",
    },
  },
  examples: [
    "harness-tool diff schema/tools.json dist/provider.mjs",
    "harness-tool diff git:v1.2.0 git:HEAD --json",
    "harness-tool diff schema/tools.json dist/provider.mjs --allow risk-raised:run",
    "harness-tool diff schema/tools.json . --update schema/tools.json",
    "harness-tool diff schema/tools.json dist/provider.mjs --baseline-optional",
  ],
  run: ({ values, positionals }, { out, err }) =>
    diffCommand(positionals[0] as string, positionals[1] as string, {
      json: values.json,
      allow: values.allow,
      update: values.update,
      baselineOptional: values["baseline-optional"],
      out,
      err,
    }),
});
