// The scaffold's src/main.ts (cli/templates/provider) checks its roots at Configure with the
// configure hook: a root that is not a folder is refused, naming `/roots/<i>`, before any tool
// runs; folders are accepted. The scaffold's files as init writes them, generated with this
// checkout's plugin and launched through harness-tool/testing's go-plugin host with this
// checkout's runtime (test/cli/support/scaffold-repository.ts).
import assert from "node:assert/strict";
import { rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { ToolErrorCategory } from "harness-tool/generated/pluggableharness/tool/v1/tool_pb.js";
import { launch, ProviderCallError, type LaunchedProvider } from "harness-tool/testing";
import { GrpcCode } from "../../runtime/errors/rpc-status-error.js";
import { typeScriptProvider } from "../runtime/interop/providers.js";
import { scaffoldRepository } from "./support/scaffold-repository.js";

describe("the scaffold's main.ts: Configure checks the roots", () => {
  let dir = "";
  let provider: LaunchedProvider;
  before(async () => {
    dir = scaffoldRepository("notes", "github.com/acme/provider-notes", ["data_source"]);
    const entry = typeScriptProvider("scaffold", path.join(dir, "src/main.ts"));
    provider = await launch(entry.command, { args: entry.args, cwd: dir, handshakeTimeoutMs: 30_000 });
  });
  after(async () => {
    await provider?.kill();
    rmSync(dir, { recursive: true, force: true });
  });

  it("refuses a root that is not a folder: INVALID_ARGUMENT, invalid_arguments naming /roots/1", async () => {
    writeFileSync(path.join(dir, "a-file"), "");
    const refused = await provider.configure({ roots: [".", "missing-folder"] }).then(
      () => assert.fail("Configure accepted a root that does not exist"),
      (error: unknown) => error,
    );
    assert.ok(refused instanceof ProviderCallError, String(refused));
    assert.equal(refused.code, GrpcCode.INVALID_ARGUMENT);
    assert.equal(refused.toolError?.category, ToolErrorCategory.INVALID_ARGUMENTS);
    const violations = refused.toolError?.details?.["violations"] as { path: string; message: string }[];
    assert.equal(violations.length, 1);
    assert.equal(violations[0]?.path, "/roots/1");
    assert.match(
      violations[0]?.message ?? "",
      /^"missing-folder" is not a folder \(.*missing-folder\): create it or name another$/,
    );
    const file = await provider.configure({ roots: ["a-file"] }).then(
      () => undefined,
      (error: unknown) => error as ProviderCallError,
    );
    assert.equal(file?.code, GrpcCode.INVALID_ARGUMENT, "a file is not a folder either");
  });

  it("accepts folders, and the tools run under them", async () => {
    await provider.configure({ roots: ["."] });
    const call = await provider.invoke({
      id: "read-1",
      toolName: "read_note",
      arguments: { title: "nothing" },
      callContext: { workingDirectory: dir },
    }).done;
    assert.equal(call.events.at(-1)?.event.case, "result", JSON.stringify(call.events.at(-1)));
  });
});
