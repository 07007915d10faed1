// The kernel's protos in proto/pluggableharness/** must be wire-identical to the kernel's contract
// (test/fixtures/wire-facts.json, plus the seed revision in wire-revision.json).
import assert from "node:assert/strict";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { fromBinary } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema, type FieldDescriptorProto } from "@bufbuild/protobuf/wkt";
import { buildDescriptorSet, repoRoot } from "./support/buf.js";
import { applyRevision, compareWireFacts, wireFactsFromDescriptors, type FieldFact, type WireFacts, type WireRevision } from "./support/wire-facts.js";

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
    for (const p of ["common", "schema", "config", "render", "slashcommand", "tool", "log", "kernel", "content", "session", "model"]) {
      assert.ok(packages.has(`pluggableharness.${p}.v1`), `pluggableharness.${p}.v1 is missing from the facts`);
    }
  });

  it("names a changed field number in a sentence that says how to fix it", () => {
    const dir = mutatedProtoCopy("pluggableharness/tool/v1/tool.proto", (text) => text.replace(/(RiskClass risk = )3;/, "$112;"));
    try {
      const problems = compareWireFacts(expected, factsOf(dir));
      assert.equal(problems.length, 1, problems.join("\n"));
      assert.match(problems[0] ?? "", /ToolSchema\.risk has field number 12, but the kernel's contract says 3: change it back to 3/);
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
      assert.match(text, /ToolService\.Invoke is unary request, unary response, but the kernel's contract says unary request, server-streaming/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("notices a field number changed in a file other than tool.proto", () => {
    const dir = mutatedProtoCopy("pluggableharness/kernel/v1/kernel.proto", (text) => text.replace(/(LogEntry entry = )2;/, "$17;"));
    try {
      const text = compareWireFacts(expected, factsOf(dir)).join("\n");
      assert.match(text, /LogRequest\.entry has field number 7/);
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
  const contract = readJson<{ extensions: Record<string, ExtensionFact>; messages: WireFacts[string]["messages"] }>("test/fixtures/annotations-contract.json");
  const set = fromBinary(FileDescriptorSetSchema, buildDescriptorSet("."));
  const annotations = set.file.find((f) => f.name === "harnesstool/v1/annotations.proto");

  it("keeps the public extension numbers", () => {
    assert.ok(annotations, "proto/harnesstool/v1/annotations.proto is not in the build");
    for (const [name, want] of Object.entries(contract.extensions)) {
      const ext: FieldDescriptorProto | undefined = annotations.extension.find((e) => `harnesstool.v1.${e.name}` === name);
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
