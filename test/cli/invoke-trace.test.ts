// `harness-tool invoke --trace`: the provider's spans, exported to the CLI's receiver, printed as a
// tree under the CLI's own calls; a provider that exports nothing gets a reason, not a crash.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { main } from "../../cli/main.js";
import { captureStream } from "../support/captured-stream.js";
import { writeProviderScript } from "../support/provider-script.js";

describe("harness-tool invoke --trace", () => {
  let dir = "";
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), "harness-tool-invoke-trace-"));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("prints the span tree: Configure and Invoke under the CLI's calls, the child process under Invoke", async () => {
    const provider = writeProviderScript(dir, "provider", "test/cli/fixtures/streaming-provider.ts");
    const out = captureStream();
    const err = captureStream();
    const code = await main(["invoke", provider, "run", "--args", JSON.stringify({ script: "exit 3" }), "--trace"], {
      out: out.stream,
      err: err.stream,
    });
    assert.equal(code, 0, err.text());
    const text = err.text();
    assert.match(text, /^trace [0-9a-f]{32}$/m);
    assert.match(
      text,
      /harness-tool invoke \[client\]\n\s+└─ pluggableharness\.tool\.v1\.ToolService\/Configure \[server\] [\d.]+ ms/,
    );
    assert.match(
      text,
      /harness-tool invoke \[client\]\n\s+└─ pluggableharness\.tool\.v1\.ToolService\/Invoke \[server\] [\d.]+ ms .*pluggableharness\.tool\.name=run.*pluggableharness\.outcome=ok\n\s+└─ spawn sh \[internal\] [\d.]+ ms .*process\.exit\.code=3/,
    );
    assert.doesNotMatch(text, /exit 3/);
  });

  it("says so when the provider exports nothing", async () => {
    const provider = writeProviderScript(dir, "quiet", "test/cli/fixtures/streaming-provider.ts", {
      OTEL_TRACES_EXPORTER: "none",
    });
    const out = captureStream();
    const err = captureStream();
    assert.equal(
      await main(["invoke", provider, "count", "--args", '{"to": 1}', "--trace"], { out: out.stream, err: err.stream }),
      0,
      err.text(),
    );
    assert.match(err.text(), /the provider exported no spans/);
  });
});
