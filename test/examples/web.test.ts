// examples/web under `harness-tool check`: with its check-config.json (a loopback endpoint nothing
// listens on) it passes, web_search ending in a retryable execution_failed instead of unknown; the
// sample config's endpoint ("example", not a URL) is refused at Configure, naming /endpoint, as
// before it ended every web_search in `unknown: Invalid URL`.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { cli } from "../cli/support/run-cli.js";
import { repoRoot } from "../support/buf.js";
import { writeProviderScript } from "../support/provider-script.js";

interface Row {
  readonly rule: string;
  readonly status: string;
  readonly why: string;
}

describe("examples/web under harness-tool check", () => {
  let dir = "";
  let provider = "";
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), "harness-tool-web-example-"));
    provider = writeProviderScript(dir, "web", "examples/web/src/main.ts");
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const check = async (...flags: string[]) => {
    const run = await cli(["check", provider, "--json", "--timeout", "60s", ...flags]);
    return { ...run, rows: run.out === "" ? [] : (JSON.parse(run.out) as Row[]) };
  };

  it("passes with check-config.json: web_search's unreachable API is a retryable execution_failed", async () => {
    const { code, rows, err } = await check("--config", path.join(repoRoot, "examples/web/check-config.json"));
    const report = JSON.stringify(rows, null, 2);
    assert.deepEqual(
      rows.filter((r) => r.status === "fail").map((r) => r.rule),
      [],
      report,
    );
    assert.equal(code, 0, `${report}\n${err}`);
    const search = rows.find((r) => r.rule === "invoke.valid:web_search");
    assert.equal(search?.status, "pass", report);
    assert.match(search?.why ?? "", /execution_failed/, report);
  });

  it("with no --config, the sample endpoint is refused at Configure, naming /endpoint", async () => {
    const { code, rows } = await check();
    assert.equal(code, 1);
    const accepts = rows.find((r) => r.rule === "configure.accepts");
    assert.equal(accepts?.status, "fail", JSON.stringify(rows, null, 2));
    assert.match(accepts?.why ?? "", /configuration rejected: \/endpoint .* is not a URL/);
  });

  it("an endpoint that is not a URL is refused at Configure, naming /endpoint", async () => {
    const config = path.join(dir, "bad-endpoint.json");
    writeFileSync(config, JSON.stringify({ api_key: "k", endpoint: "search.example/api" }));
    const { code, rows } = await check("--config", config);
    assert.equal(code, 1);
    const accepts = rows.find((r) => r.rule === "configure.accepts");
    assert.equal(accepts?.status, "fail", JSON.stringify(rows, null, 2));
    assert.match(accepts?.why ?? "", /configuration rejected: \/endpoint "search\.example\/api" is not a URL/);
  });
});
