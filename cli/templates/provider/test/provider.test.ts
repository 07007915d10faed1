// Launches the built provider (dist/provider.mjs) exactly as the kernel does (go-plugin handshake, broker, Shutdown)
// and calls its tools. Run `npm run build` first; `npm test` runs the compiled tests.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { after, before, beforeEach, describe, it } from "node:test";
import { toJsonString } from "@bufbuild/protobuf";
import { GetSchemaResponseSchema } from "harness-tool/generated/pluggableharness/tool/v1/tool_pb.js";
import { launch, type LaunchedProvider } from "harness-tool/testing";
import packageJson from "../package.json" with { type: "json" };
import { handlers } from "../src/handlers.js";
{{testImports}}
const entry = fileURLToPath(new URL("../provider.mjs", import.meta.url));
const callContext = { sessionId: "test-session", turnId: "1", workingDirectory: process.cwd() };
const snapshot = new URL("../../schema/tools.json", import.meta.url);

describe("the {{name}} provider", () => {
  // Launched once; when it cannot start, the first test fails with its error (and its stderr),
  // and every other test is skipped naming that cause instead of failing behind it.
  let provider: LaunchedProvider;
  let startError: string | undefined;
  const startTest = "starts from dist/provider.mjs and accepts its configuration";
  before(async () => {
    try {
      provider = await launch(entry);
      await provider.configure({ roots: [process.cwd()], api_token: "not-a-real-token" });
    } catch (e) {
      startError = e instanceof Error ? e.message : String(e);
    }
  });
  beforeEach((t) => {
    if (startError !== undefined && t.name !== startTest && "skip" in t) t.skip("the provider did not start: see the first test");
  });
  after(async () => {
    if (provider === undefined) return;
    const report = await provider.kill();
    if (startError === undefined) assert.ok(report.graceful, "the provider should exit by itself on Shutdown");
  });

  it(startTest, () => {
    if (startError !== undefined) assert.fail(`the provider did not start: ${startError}`);
  });

  it("serves a tool for every handler, and a handler for every tool", async () => {
    const schema = await provider.getSchema();
    // Handlers are the tools' names in lowerCamelCase: read_note -> readNote (`hooks` holds the hook
    // subscriptions, and previewAskUser is askUser's Preview).
    const keys = Object.keys(handlers);
    const isPreview = (key: string) => /^preview[A-Z]/.test(key) && keys.includes(key.charAt(7).toLowerCase() + key.slice(8));
    const handlerTools = keys
      .filter((key) => key !== "hooks" && !isPreview(key))
      .map((key) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`));
    assert.ok(schema.tools.length > 0);
    assert.deepEqual(schema.tools.map((t) => t.name).sort(), handlerTools.sort());
  });

  const noBaseline = existsSync(snapshot) ? false : "no schema/tools.json yet: the first npm run release (or npm run snapshot) records it";
  it("serves the tool surface schema/tools.json records", { skip: noBaseline }, async () => {
    // Once a release recorded the surface, `npm run build` updates it for a compatible change; a
    // breaking or risk-raising one waits until `npx harness-tool diff schema/tools.json
    // dist/provider.mjs --allow <ids> --update schema/tools.json` accepts it, and this test fails meanwhile.
    const recorded = readFileSync(snapshot, "utf8");
    const served = `${toJsonString(GetSchemaResponseSchema, await provider.getSchema(), { prettySpaces: 2 })}\n`;
    assert.ok(served === recorded, "the provider's tool surface differs from schema/tools.json: run npm run build, and accept what it reports");
  });

  it("reports package.json's version in Describe", async () => {
    const { producer } = await provider.describe();
    assert.equal(producer?.version, packageJson.version);
  });

{{tests}}});
