// The kernel's protos in proto/pluggableharness/** must be wire-identical to the kernel's contract
// (test/fixtures/wire-facts.json, plus the seed revision in wire-revision.json), and to the kernel's
// source snapshot itself: its api/ is built with buf here and every type proto/ declares is compared
// with the snapshot's, hook/v1 and plan/v1 whole.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { fromBinary } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema, type FieldDescriptorProto } from "@bufbuild/protobuf/wkt";
import { KernelUnavailable, locateSnapshot } from "./runtime/kernel/kernel-snapshot.js";
import { buildDescriptorSet, repoRoot } from "./support/buf.js";
import {
  applyRevision,
  compareWireFacts,
  type FileFacts,
  wireFactsFromDescriptors,
  type FieldFact,
  type WireFacts,
  type WireRevision,
} from "./support/wire-facts.js";

function readJson<T>(file: string): T {
  return JSON.parse(readFileSync(path.join(repoRoot, file), "utf8")) as T;
}

const snapshot = readJson<{ files: WireFacts }>("test/fixtures/wire-facts.json").files;
const revision = readJson<WireRevision>("test/fixtures/wire-revision.json");
const expected = applyRevision(snapshot, revision);

function factsOf(input: string, cwd?: string): WireFacts {
  const set = fromBinary(FileDescriptorSetSchema, buildDescriptorSet(input, cwd));
  return wireFactsFromDescriptors(set, "pluggableharness/");
}

/** A copy of proto/ in a temporary folder, with `edit` applied to one file. */
function mutatedProtoCopy(file: string, edit: (text: string) => string): string {
  const dir = mkdtempSync(path.join(tmpdir(), "harness-tool-wire-"));
  cpSync(path.join(repoRoot, "proto"), dir, { recursive: true });
  const target = path.join(dir, file);
  const before = readFileSync(target, "utf8");
  const after = edit(before);
  assert.notEqual(after, before, `the mutation of ${file} changed nothing`);
  writeFileSync(target, after);
  return dir;
}

describe("wire contract", () => {
  it("proto/pluggableharness matches the kernel's wire facts plus the seed revision", () => {
    const problems = compareWireFacts(expected, factsOf("."));
    assert.deepEqual(problems, [], `the protos differ from the kernel's contract:\n- ${problems.join("\n- ")}`);
  });

  it("covers every package the contract lists", () => {
    const packages = new Set(Object.values(expected).map((f) => f.package));
    for (const p of [
      "common",
      "schema",
      "config",
      "render",
      "slashcommand",
      "tool",
      "log",
      "kernel",
      "content",
      "session",
      "model",
      "plan",
      "hook",
    ]) {
      assert.ok(packages.has(`pluggableharness.${p}.v1`), `pluggableharness.${p}.v1 is missing from the facts`);
    }
  });

  it("names a changed field number in a sentence that says how to fix it", () => {
    const dir = mutatedProtoCopy("pluggableharness/tool/v1/tool.proto", (text) =>
      text.replace(/(RiskClass risk = )3;/, "$112;"),
    );
    try {
      const problems = compareWireFacts(expected, factsOf(dir));
      assert.equal(problems.length, 1, problems.join("\n"));
      assert.match(
        problems[0] ?? "",
        /ToolSchema\.risk has field number 12, but the kernel's contract says 3: change it back to 3/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("names a changed enum value, a renamed field and a lost streaming shape", () => {
    const dir = mutatedProtoCopy("pluggableharness/tool/v1/tool.proto", (text) =>
      text
        .replace(/TOOL_KIND_INTERACTIVE = 3;/, "TOOL_KIND_INTERACTIVE = 4;")
        .replace(/string tool_name = 2;/, "string tool = 2;")
        .replace(/returns \(stream InvokeResponse\)/, "returns (InvokeResponse)"),
    );
    try {
      const text = compareWireFacts(expected, factsOf(dir)).join("\n");
      assert.match(text, /ToolKind\.TOOL_KIND_INTERACTIVE is 4, but the kernel's contract says 3/);
      assert.match(text, /ToolCall field number 2 is named `tool`, but the kernel's contract names it `tool_name`/);
      assert.match(
        text,
        /ToolService\.Invoke is unary request, unary response, but the kernel's contract says unary request, server-streaming/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("notices a field number changed in a file other than tool.proto", () => {
    const dir = mutatedProtoCopy("pluggableharness/kernel/v1/kernel.proto", (text) =>
      text.replace(/(LogEntry entry = )2;/, "$17;"),
    );
    try {
      const text = compareWireFacts(expected, factsOf(dir)).join("\n");
      assert.match(text, /LogRequest\.entry has field number 7/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** Files whose every type must be the snapshot's: what proto/ holds of them is the whole file. */
const wholeFiles = ["pluggableharness/hook/v1/hook.proto", "pluggableharness/plan/v1/plan.proto"];

/** The snapshot's `file` cut down to the types `ours` declares (unless the file is kept whole). */
function restrictTo(file: string, theirs: FileFacts, ours: FileFacts): FileFacts {
  if (wholeFiles.includes(file)) return theirs;
  const pick = <T>(table: Record<string, T>, names: Record<string, unknown>): Record<string, T> =>
    Object.fromEntries(Object.entries(table).filter(([name]) => name in names));
  return {
    ...theirs,
    messages: pick(theirs.messages, ours.messages),
    enums: pick(theirs.enums, ours.enums),
    services: pick(theirs.services, ours.services),
  };
}

/** The snapshot's api/ facts with the seed revision applied, or why there are none here. */
function snapshotFacts(): { facts: WireFacts } | { skip: string } {
  let file: string;
  try {
    file = locateSnapshot().file;
  } catch (error) {
    if (!(error instanceof KernelUnavailable)) throw error;
    if (process.env.HARNESS_TOOL_REQUIRE_INTEROP === "1")
      throw new Error(`the kernel snapshot is required (HARNESS_TOOL_REQUIRE_INTEROP=1): ${error.message}`);
    return { skip: error.message };
  }
  const dir = mkdtempSync(path.join(tmpdir(), "harness-tool-wire-snapshot-"));
  try {
    const untar = spawnSync("tar", ["-xzf", file, "-C", dir, "--wildcards", "*/api/*"], { encoding: "utf8" });
    assert.equal(untar.status, 0, `tar could not unpack api/ from ${file}: ${untar.stderr}`);
    const [root] = readdirSync(dir);
    assert.ok(root, `${file} holds no api/ folder`);
    const set = fromBinary(FileDescriptorSetSchema, buildDescriptorSet("api", path.join(dir, root)));
    return { facts: applyRevision(wireFactsFromDescriptors(set, "pluggableharness/"), revision) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("wire contract against the kernel's source snapshot", () => {
  const found = snapshotFacts();
  const skip = "skip" in found ? found.skip : false;
  const kernel: WireFacts = "facts" in found ? found.facts : {};

  it("every type in proto/pluggableharness is the snapshot's (plus the seed revision), hook/v1 and plan/v1 whole", {
    skip,
  }, () => {
    const ours = factsOf(".");
    const problems: string[] = [];
    for (const [file, facts] of Object.entries(ours)) {
      const theirs = kernel[file];
      if (!theirs) problems.push(`proto/${file} is not in the kernel's snapshot.`);
      else problems.push(...compareWireFacts({ [file]: restrictTo(file, theirs, facts) }, { [file]: facts }));
    }
    for (const file of wholeFiles) if (!ours[file]) problems.push(`proto/${file} is missing.`);
    assert.deepEqual(problems, [], `proto/ differs from the kernel's snapshot:\n- ${problems.join("\n- ")}`);
  });

  it("names a hook field renumbered against the snapshot", { skip }, () => {
    const dir = mutatedProtoCopy("pluggableharness/hook/v1/hook.proto", (text) =>
      text.replace(/(HookMode mode = )2;/, "$19;"),
    );
    try {
      const file = "pluggableharness/hook/v1/hook.proto";
      const theirs = kernel[file];
      assert.ok(theirs);
      const text = compareWireFacts({ [file]: theirs }, { [file]: factsOf(dir)[file] as FileFacts }).join("\n");
      assert.match(text, /DispatchHookRequest\.mode has field number 9, but the kernel's contract says 2/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("annotation options", () => {
  interface ExtensionFact {
    extendee: string;
    number: number;
    type: string;
  }
  const contract = readJson<{ extensions: Record<string, ExtensionFact>; messages: WireFacts[string]["messages"] }>(
    "test/fixtures/annotations-contract.json",
  );
  const set = fromBinary(FileDescriptorSetSchema, buildDescriptorSet("."));
  const annotations = set.file.find((f) => f.name === "harnesstool/v1/annotations.proto");

  it("keeps the public extension numbers", () => {
    assert.ok(annotations, "proto/harnesstool/v1/annotations.proto is not in the build");
    for (const [name, want] of Object.entries(contract.extensions)) {
      const ext: FieldDescriptorProto | undefined = annotations.extension.find(
        (e) => `harnesstool.v1.${e.name}` === name,
      );
      assert.ok(ext, `extension ${name} is missing`);
      assert.equal(ext.number, want.number, `extension ${name} must keep number ${want.number}`);
      assert.equal(ext.extendee, `.${want.extendee}`, `extension ${name} must extend ${want.extendee}`);
      assert.equal(ext.typeName, `.${want.type}`, `extension ${name} must be of type ${want.type}`);
    }
  });

  it("keeps every public option field's name, number, type and label", () => {
    const facts = wireFactsFromDescriptors(set, "harnesstool/")["harnesstool/v1/annotations.proto"];
    assert.ok(facts);
    for (const [message, wantFields] of Object.entries(contract.messages)) {
      const have: FieldFact[] | undefined = facts.messages[message];
      assert.ok(have, `message ${message} is missing`);
      for (const want of wantFields) {
        const field: FieldFact | undefined = have.find((f: FieldFact) => f.name === want.name);
        assert.deepEqual(field, want, `${message}.${want.name} must stay ${JSON.stringify(want)}`);
      }
    }
  });
});
