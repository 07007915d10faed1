// The path helper: relative paths resolve against working_directory; paths outside the allowed
// roots, symlinks out of them included, are refused with permission_denied.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { create, type JsonObject } from "@bufbuild/protobuf";
import { ConfigureRequestSchema, ToolErrorCategory } from "../../../generated/pluggableharness/tool/v1/tool_pb.js";
import { defineConfig, ToolError } from "../../../runtime/index.js";
import { createToolService } from "../../../runtime/service/calls/index.js";
import { prepareRoots, resolveToolPath } from "../../../runtime/service/calls/resolve-path.js";
import { pathSchema, providerWith } from "./support/sample-tools.js";
import { invokeRequest, onlyTerminal, recordingSink } from "./support/recording-sink.js";
import { defineTool } from "../../../runtime/index.js";

const base = realpathSync(mkdtempSync(path.join(tmpdir(), "resolve-path-")));
const root = path.join(base, "root");
const outside = path.join(base, "outside");
mkdirSync(path.join(root, "sub"), { recursive: true });
mkdirSync(outside);
writeFileSync(path.join(outside, "secret.txt"), "x");
symlinkSync(outside, path.join(root, "escape"));
symlinkSync(path.join(root, "sub"), path.join(base, "alias-of-sub"));

function refusal(fn: () => unknown): ToolError {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof ToolError);
    return error;
  }
  assert.fail("expected a ToolError");
}

describe("resolveToolPath", () => {
  const roots = prepareRoots([root]);

  it("resolves a relative path against the working directory", () => {
    assert.equal(
      resolveToolPath("sub/new-file.txt", { workingDirectory: root, roots }),
      path.join(root, "sub", "new-file.txt"),
    );
    assert.equal(resolveToolPath("a/../b", { workingDirectory: "/w" }), "/w/b");
  });

  it("refuses a path outside the roots, by .. or by absolute path", () => {
    assert.equal(
      refusal(() => resolveToolPath("../outside/secret.txt", { workingDirectory: root, roots })).category,
      "permission_denied",
    );
    assert.equal(
      refusal(() => resolveToolPath("/etc/passwd", { workingDirectory: root, roots })).category,
      "permission_denied",
    );
    assert.equal(
      refusal(() => resolveToolPath(`${root}-sibling/x`, { workingDirectory: root, roots })).category,
      "permission_denied",
    );
  });

  it("refuses a symlink that leads out of the roots, even to a file not yet created", () => {
    assert.equal(
      refusal(() => resolveToolPath("escape/secret.txt", { workingDirectory: root, roots })).category,
      "permission_denied",
    );
    assert.equal(
      refusal(() => resolveToolPath("escape/new/deeper.txt", { workingDirectory: root, roots })).category,
      "permission_denied",
    );
  });

  it("allows a path reached through a symlink into the roots, returning its real location", () => {
    assert.equal(
      resolveToolPath(path.join(base, "alias-of-sub", "f"), { workingDirectory: "/", roots }),
      path.join(root, "sub", "f"),
    );
  });

  it("refuses a relative path without a working directory, as invalid_arguments", () => {
    assert.equal(refusal(() => resolveToolPath("x", { workingDirectory: "" })).category, "invalid_arguments");
  });

  it("allows everything without roots, and nothing with an empty list", () => {
    assert.equal(resolveToolPath("/etc", { workingDirectory: "/" }), realpathSync("/etc"));
    assert.equal(
      refusal(() => resolveToolPath("/etc", { workingDirectory: "/", roots: [] })).category,
      "permission_denied",
    );
  });
});

describe("ToolContext.resolvePath", () => {
  const read = defineTool<{ path: string }, { path: string }>()({
    name: "read",
    kind: "data_source",
    risk: "read_only",
    description: "Resolves.",
    inputSchema: pathSchema,
    outputSchema: pathSchema,
    concurrency: { safe: true },
    idempotent: true,
    defaultTimeoutMs: 5_000,
  });
  const config = defineConfig<{ root: string }>([{ name: "root", type: "string", required: true }]);

  async function call(p: string) {
    const service = createToolService(
      providerWith(read, async (i, ctx) => ({ path: ctx.resolvePath(i.path) }), {
        config,
        allowedRoots: ((c: { root: string }) => [c.root]) as never,
      }),
      { stderr: () => {} },
    );
    await service.configure(create(ConfigureRequestSchema, { config: { root } }));
    const rec = recordingSink();
    await service.invoke(invokeRequest("read", { path: p }, { workingDirectory: path.join(root, "sub") }), rec.sink);
    return onlyTerminal(rec);
  }

  it("uses the call's working directory and the configured roots", async () => {
    const ok = await call("file.txt");
    assert.deepEqual(ok.case === "result" && ok.value.payload, {
      path: path.join(root, "sub", "file.txt"),
    } as JsonObject);
    const denied = await call("../escape/secret.txt");
    assert.equal(denied.case === "error" && denied.value.category, ToolErrorCategory.PERMISSION_DENIED);
  });
});
