// inspect --timeout bounds each call it makes: an Invoke still running then is cancelled, as the
// kernel cancels a call past its deadline, and the page is told it ended cancelled.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { InspectSession } from "../../cli/inspector/index.js";
import type { StreamMessage } from "../../cli/inspector/protocol/page-protocol.js";
import { writeProviderScript } from "../support/provider-script.js";

describe("inspect --timeout", () => {
  let dir = "";
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), "harness-tool-inspect-timeout-"));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("cancels an Invoke still running at the call timeout", { timeout: 60_000 }, async () => {
    const command = writeProviderScript(dir, "invoke-hangs", "test/cli/fixtures/hanging-provider.ts", {
      HANG: "invoke",
    });
    const session = await InspectSession.start({ command, args: [] }, { workingDirectory: dir, callTimeoutMs: 1500 });
    try {
      const ended = new Promise<StreamMessage>((resolve) =>
        session.subscribe((message) => message.kind === "call-end" && resolve(message)),
      );
      const call = session.invoke({ tool: "wait", args: {} });
      const end = await ended;
      assert.ok(end.kind === "call-end" && end.id === call.id);
      assert.equal(end.kind === "call-end" && end.end.cancelled, true, JSON.stringify(end));
    } finally {
      await session.close();
    }
  });
});
