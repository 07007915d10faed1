// `harness-tool diff`'s comparison, as a table over a corpus of protos (test/cli/fixtures/diff):
// corpus/diff/before/v1 is the starting surface, every other package that file with one change.
// The whole corpus is generated once with protoc-gen-harness-tool and each provider's GetSchema
// response built from the generated factory, so each row compares what the kernel would receive.
// Then the command itself: its table at 80 and 100 columns and its JSON (snapshots), exit codes
// with and without --allow, --update, and the protos:/git: sides through a real buf generate.
import assert from "node:assert/strict";
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
import { pathToFileURL } from "node:url";
import { after, before, describe, it } from "node:test";
import { toJsonString } from "@bufbuild/protobuf";
import {
  type GetSchemaResponse,
  GetSchemaResponseSchema,
} from "harness-tool/generated/pluggableharness/tool/v1/tool_pb.js";
import { claimedHookPoints } from "../../cli/diff/load-surface.js";
import { changeClasses, diffSurfaces } from "../../cli/diff/surface-diff.js";
import { buildGetSchemaResponse } from "../../runtime/service/calls/get-schema-response.js";
import { repoRoot, runBuf } from "../support/buf.js";
import { assertSnapshot, widestLine } from "../support/output-snapshot.js";
import { cli } from "./support/run-cli.js";

const corpus = path.join(repoRoot, "test/cli/fixtures/diff");

/** Per corpus package: the change ids diffing before → it must give, in the order diff lists them. */
const expected: Record<string, readonly string[]> = {
  tool_added: ["tool-added:list_items"],
  tool_removed: ["tool-removed:delete_item"],
  kind_changed: ["kind-changed:read_item", "concurrency-tightened:read_item"],
  risk_raised: ["risk-raised:write_item"],
  risk_lowered: ["risk-lowered:delete_item"],
  concurrency_relaxed: ["concurrency-relaxed:write_item"],
  concurrency_tightened: ["concurrency-tightened:read_item"],
  timeout_changed: ["timeout-changed:write_item"],
  terminates_turn_changed: ["terminates-turn-changed:write_item"],
  idempotent_claimed: ["idempotent-claimed:write_item"],
  idempotent_dropped: ["idempotent-dropped:read_item"],
  streaming_changed: ["streaming-changed:read_item"],
  description_changed: ["description-changed:read_item"],
  input_field_added: ["input-field-added:read_item.fresh"],
  input_required_added: ["input-required-added:read_item.owner"],
  input_field_required: ["input-field-required:read_item.note"],
  input_field_optional: ["input-field-optional:write_item.text"],
  input_field_removed: ["input-field-removed:read_item.note"],
  input_type_changed: ["input-type-changed:read_item.note"],
  input_enum_value_removed: ["input-enum-value-removed:read_item.shade=dark"],
  input_enum_value_added: ["input-enum-value-added:read_item.shade=grey"],
  output_field_added: ["output-field-added:read_item.size"],
  output_field_removed: ["output-field-removed:read_item.tags"],
  output_nested_field_removed: [
    "output-field-added:read_item.owner.email",
    "output-field-removed:read_item.owner.name",
  ],
  output_field_optional: ["output-field-optional:read_item.title"],
  output_field_required: ["output-field-required:read_item.summary"],
  output_type_changed: ["output-type-changed:read_item.tags[]"],
  output_enum_value_added: ["output-enum-value-added:read_item.mood=calm"],
  output_enum_value_removed: ["output-enum-value-removed:read_item.mood=sad"],
  config_attribute_added: ["config-attribute-added:config.zone"],
  config_required_added: ["config-required-added:config.zone"],
  config_attribute_required: ["config-attribute-required:config.limit"],
  config_attribute_optional: ["config-attribute-optional:config.roots"],
  config_attribute_removed: ["config-attribute-removed:config.region"],
  config_type_changed: ["config-type-changed:config.limit"],
  config_sensitive_set: ["config-sensitive-set:config.region"],
  config_sensitive_cleared: ["config-sensitive-cleared:config.token"],
  hook_point_added: ["hook-point-added:hooks.post-tool-call"],
  hook_point_removed: ["hook-point-removed:hooks.plan-ready"],
};

/** Each corpus package's surface, by package name ("before", "tool_added", ...). */
const surfaces = new Map<string, GetSchemaResponse>();
let scratch = "";

before(async () => {
  // Under the repository's node_modules, so the generated code resolves `harness-tool` as a provider does.
  const cache = path.join(repoRoot, "node_modules/.cache");
  mkdirSync(cache, { recursive: true });
  scratch = mkdtempSync(path.join(cache, "diff-corpus-"));
  writeFileSync(
    path.join(scratch, "buf.gen.yaml"),
    JSON.stringify({
      version: "v2",
      plugins: [
        {
          local: [process.execPath, path.join(repoRoot, "plugin/protoc-gen-harness-tool.mjs")],
          strategy: "all",
          out: scratch,
          opt: ["target=ts", "import_extension=js"],
        },
      ],
    }),
  );
  const run = runBuf(["generate", "corpus", "--template", path.join(scratch, "buf.gen.yaml")], corpus);
  assert.equal(run.status, 0, run.stderr);
  const fail = () => assert.fail("GetSchema never calls a handler");
  for (const name of readdirSync(path.join(scratch, "diff"))) {
    const file = path.join(scratch, "diff", name, "v1/corpus_tool.ts");
    const module = (await import(pathToFileURL(file).href)) as {
      createCorpusProvider: (handlers: never) => Parameters<typeof buildGetSchemaResponse>[0];
    };
    // The factory checks its hooks against the proto's supported_hook_points, as diff's main serves them.
    const hooks = Object.fromEntries(
      claimedHookPoints(readFileSync(file, "utf8")).map((point) => [point, { observe: fail }]),
    );
    const handlers = new Proxy({}, { get: (_, key) => (key === "hooks" ? hooks : fail) });
    surfaces.set(name, buildGetSchemaResponse(module.createCorpusProvider(handlers as never)));
  }
});
after(() => rmSync(scratch, { recursive: true, force: true }));

describe("diffSurfaces over the corpus: one package per class of change", () => {
  it("the corpus has exactly the packages the table names, and a row for every class", () => {
    assert.deepEqual([...surfaces.keys()].filter((n) => n !== "before").sort(), Object.keys(expected).sort());
    const covered = new Set(Object.values(expected).flatMap((ids) => ids.map((id) => id.slice(0, id.indexOf(":")))));
    // Protos do not say which schema_versions Render decodes: test/cli/render-diff.test.ts covers those classes.
    assert.deepEqual(
      Object.keys(changeClasses).filter((c) => !covered.has(c) && !c.startsWith("renderer-")),
      [],
    );
  });
  for (const [name, ids] of Object.entries(expected)) {
    it(`${name}: ${ids.join(", ")}`, () => {
      const changes = diffSurfaces(surfaces.get("before")!, surfaces.get(name)!);
      assert.deepEqual(
        changes.map((c) => c.id),
        ids,
      );
      for (const c of changes) assert.equal(c.severity, changeClasses[c.class]);
    });
  }
  it("a surface against itself: no changes", () => {
    assert.deepEqual(diffSurfaces(surfaces.get("before")!, surfaces.get("before")!), []);
  });
});

/** A surface with several changes at once: read_item requires an owner, write_item's risk rose, delete_item is gone, the token is no secret any more. */
function changedSurface(): GetSchemaResponse {
  const pick = (pkg: string, tool: string) => surfaces.get(pkg)!.tools.find((t) => t.name === tool)!;
  return {
    ...surfaces.get("before")!,
    tools: [
      pick("input_required_added", "read_item"),
      pick("risk_raised", "write_item"),
      pick("tool_added", "list_items"),
    ],
    configSchema: surfaces.get("config_sensitive_cleared")!.configSchema,
  };
}

describe("harness-tool diff", () => {
  const snapshot = (name: string, surface: GetSchemaResponse) => {
    const file = path.join(scratch, `${name}.json`);
    writeFileSync(file, `${toJsonString(GetSchemaResponseSchema, surface, { prettySpaces: 2 })}\n`);
    return file;
  };
  const blocking =
    "tool-removed:delete_item,input-required-added:read_item.owner,risk-raised:write_item,config-sensitive-cleared:config.token";

  for (const columns of [80, 100]) {
    it(`prints a table of the changes within ${columns} columns, exit 1 naming the ids to allow`, async () => {
      const run = await cli(
        ["diff", snapshot("old", surfaces.get("before")!), snapshot("new", changedSurface())],
        columns,
      );
      assert.equal(run.code, 1, run.err);
      assert.ok(widestLine(run.out) <= columns, run.out);
      assertSnapshot(`diff-table-${columns}`, run.out);
      assert.equal(run.err, `harness-tool diff: 4 breaking or risk-raising changes: accept with --allow ${blocking}\n`);
    });
  }

  it("--allow naming every blocking change: exit 0, those rows marked allowed; --json says the same", async () => {
    const [old, now] = [snapshot("old", surfaces.get("before")!), snapshot("new", changedSurface())];
    const run = await cli(["diff", old, now, "--allow", blocking], 100);
    assert.equal(run.code, 0, run.err);
    assert.equal(run.out.match(/^allowed /gm)?.length, 4, run.out);
    assert.equal(run.err, "");
    const stale = await cli(["diff", old, old, "--allow", "tool-removed:gone"]);
    assert.deepEqual(stale, {
      code: 0,
      out: "no changes\n",
      err: "harness-tool diff: --allow names tool-removed:gone, which this diff does not have\n",
    });
    const json = await cli(["diff", old, now, "--json", "--allow", "risk-raised:write_item"]);
    assert.equal(json.code, 1);
    const report = JSON.parse(json.out) as {
      changes: { id: string; severity: string; allowed: boolean }[];
      blocking: string[];
    };
    assertSnapshot("diff-json", `${JSON.stringify({ ...report, old: "old.json", new: "new.json" }, null, 2)}\n`);
    assert.deepEqual(report.blocking, [
      "tool-removed:delete_item",
      "input-required-added:read_item.owner",
      "config-sensitive-cleared:config.token",
    ]);
  });

  it("a compatible change alone: exit 0; --update writes the new surface only when nothing blocks, or when there is no snapshot yet", async () => {
    const file = snapshot("accepted", surfaces.get("before")!);
    const added = snapshot("added", surfaces.get("tool_added")!);
    const run = await cli(["diff", file, added, "--update", file]);
    assert.equal(run.code, 0, run.err);
    assert.deepEqual(await cli(["diff", file, added]), { code: 0, out: "no changes\n", err: "" });
    const first = path.join(scratch, "first/tools.json");
    assert.deepEqual(await cli(["diff", first, added, "--update", first]), {
      code: 0,
      out: `wrote ${first}, the first snapshot of the tool surface: commit it\n`,
      err: "",
    });
    assert.equal(readFileSync(first, "utf8"), readFileSync(added, "utf8"));
    const blocked = await cli(["diff", file, snapshot("removed", surfaces.get("tool_removed")!), "--update", file]);
    assert.equal(blocked.code, 1);
    assert.equal(
      readFileSync(file, "utf8"),
      readFileSync(added, "utf8"),
      "a blocked diff leaves the snapshot as it was",
    );
  });

  it("--baseline-optional: a missing baseline is one line and exit 0, writing nothing even with --update; a present one is guarded", async () => {
    const missing = path.join(scratch, "unreleased/tools.json");
    const added = snapshot("added", surfaces.get("tool_added")!);
    assert.deepEqual(await cli(["diff", missing, added, "--update", missing, "--baseline-optional"]), {
      code: 0,
      out: "",
      err: `harness-tool diff: no baseline ${missing} yet, nothing to guard: the first release records it (npm run release, or npm run snapshot)\n`,
    });
    assert.equal(existsSync(missing), false, "no baseline is written before a release");
    // Without the flag the same missing file is a usage error.
    assert.equal((await cli(["diff", missing, added])).code, 2);
    // Once a baseline exists, the flag changes nothing: a breaking change still fails.
    const released = snapshot("released", surfaces.get("before")!);
    const removed = await cli([
      "diff",
      released,
      snapshot("removed", surfaces.get("tool_removed")!),
      "--update",
      released,
      "--baseline-optional",
    ]);
    assert.equal(removed.code, 1, removed.err);
    assert.match(removed.err, /breaking or risk-raising change/);
  });

  it("usage mistakes: one line each, exit 2", async () => {
    const old = snapshot("old", surfaces.get("before")!);
    const cases: [string[], RegExp][] = [
      [
        ["diff", old, old, "--allow", "riskraised"],
        /^harness-tool diff: --allow riskraised is not a change id \(<change>:<subject>/,
      ],
      [
        ["diff", old, path.join(scratch, "absent.json")],
        /^harness-tool diff: \S+absent\.json does not exist: write a snapshot with harness-tool schema <provider> --json > /,
      ],
      [
        ["diff", old, path.join(repoRoot, "package.json")],
        /^harness-tool diff: \S+package\.json is not a GetSchema snapshot \(harness-tool schema --json writes one\)/,
      ],
      [
        ["diff", old, "protos:test/cli"],
        /^harness-tool diff: protos:test\/cli: \S+ has no buf\.yaml: name the buf workspace folder\n$/,
      ],
    ];
    for (const [argv, message] of cases) {
      const run = await cli(argv);
      assert.equal(run.code, 2, `${argv.join(" ")}: ${run.err}`);
      assert.match(run.err, message);
      assert.equal(run.err.trimEnd().split("\n").length, 1, run.err);
    }
  });

  it("git:<ref> against protos:<dir>: the committed protos and the working copy, generated with the plugin and served", async () => {
    // A provider repository in miniature: its protos committed, then its working copy changed.
    const repo = mkdtempSync(path.join(repoRoot, "node_modules/.cache/diff-git-"));
    try {
      mkdirSync(path.join(repo, "proto/diff/before/v1"), { recursive: true });
      symlinkSync(path.join(repoRoot, "proto"), path.join(repo, "harness-proto"));
      writeFileSync(path.join(repo, "buf.yaml"), "version: v2\nmodules:\n  - path: proto\n  - path: harness-proto\n");
      const proto = path.join(repo, "proto/diff/before/v1/corpus.proto");
      writeFileSync(proto, readFileSync(path.join(corpus, "corpus/diff/before/v1/corpus.proto")));
      const git = (...args: string[]) =>
        assert.equal(spawnSync("git", args, { cwd: repo }).status, 0, `git ${args.join(" ")}`);
      git("init", "-q");
      git("add", ".");
      git("-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-qm", "before");
      writeFileSync(
        proto,
        readFileSync(path.join(corpus, "corpus/diff/risk_raised/v1/corpus.proto"), "utf8").replace(
          "package diff.risk_raised.v1;",
          "package diff.before.v1;",
        ),
      );
      const cwd = process.cwd();
      process.chdir(repo);
      try {
        const run = await cli(["diff", "git:HEAD", "protos:.", "--json"]);
        assert.equal(run.code, 1, run.err);
        assert.deepEqual((JSON.parse(run.out) as { blocking: string[] }).blocking, ["risk-raised:write_item"]);
        assert.match(
          (await cli(["diff", "git:no-such-ref", "protos:."])).err,
          /^harness-tool diff: git:no-such-ref: fatal: /,
        );
      } finally {
        process.chdir(cwd);
      }
      assert.ok(
        !existsSync(path.join(repoRoot, "node_modules/.cache/harness-tool-diff")) ||
          readdirSync(path.join(repoRoot, "node_modules/.cache/harness-tool-diff")).length === 0,
        "diff leaves no generated folder behind",
      );
    } finally {
      rmSync(repo, { recursive: true, force: true });
    }
  });
});
