// `harness-tool invoke` and `schema` through the real handshake: a process-backed tool's output
// shown live, --json events, an error's exit code, and Ctrl-C cancelling a call.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { invokeCommand } from "../../cli/commands/invoke-command.js";
import { main } from "../../cli/main.js";
import { captureStream } from "../support/captured-stream.js";
import { writeProviderScript } from "../support/provider-script.js";

const capture = () => captureStream();

describe("harness-tool invoke", () => {
  let dir = "";
  let provider = "";
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), "harness-tool-invoke-"));
    provider = writeProviderScript(dir, "provider", "test/cli/fixtures/streaming-provider.ts");
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("prints the tools table", async () => {
    const out = capture();
    const err = capture();
    assert.equal(await main(["schema", provider], { out: out.stream, err: err.stream }), 0, err.text());
    assert.match(out.text(), /^name\s+kind\s+risk\s+concurrency\s+timeout\s+flags$/m);
    assert.match(out.text(), /^run\s+resource\s+high\s+exclusive\s+30s\s+streaming$/m);
    assert.match(out.text(), /^count\s+data_source\s+read_only\s+parallel\s+30s\s+streaming, idempotent$/m);
  });

  it("streams a process-backed tool's output in order, then its exit status and result", async () => {
    const out = capture();
    const err = capture();
    const code = await main(
      ["invoke", provider, "run", "--args", JSON.stringify({ script: "echo one; echo two; echo oops >&2; exit 4" })],
      {
        out: out.stream,
        err: err.stream,
      },
    );
    assert.equal(code, 0, err.text());
    assert.match(out.text(), /one\ntwo\n[\s\S]*exit status: 4\n[\s\S]*result:\n\{\n {2}"exit_code": 4\n\}/);
    assert.match(err.text(), /oops/);
  });

  it("prints one JSON event per line with --json", async () => {
    const out = capture();
    const err = capture();
    assert.equal(
      await main(["invoke", provider, "count", "--args", '{"to": 3}', "--json"], { out: out.stream, err: err.stream }),
      0,
      err.text(),
    );
    const events = out
      .text()
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    assert.deepEqual(
      events.map((e) => Object.keys(e)[0]),
      ["progress", "progress", "progress", "result"],
    );
    assert.deepEqual(events[3], { result: { payload: { counted: 3 } } });
  });

  it("exits 1 with the category on an error, and 2 on bad --args", async () => {
    const out = capture();
    const err = capture();
    assert.equal(
      await main(["invoke", provider, "count", "--args", '{"to": "three"}'], { out: out.stream, err: err.stream }),
      1,
    );
    assert.match(out.text(), /error \[invalid_arguments\]/);
    assert.equal(
      await main(["invoke", provider, "count", "--args", "{not json"], { out: out.stream, err: err.stream }),
      2,
    );
    assert.match(err.text(), /--args is not JSON/);
  });

  it("cancels the call on Ctrl-C: no terminal event, exit 130", async () => {
    const out = capture();
    const err = capture();
    const interrupt = new AbortController();
    const running = invokeCommand(
      { command: provider, args: [] },
      {
        tool: "count",
        args: { to: 1000 },
        cwd: dir,
        json: true,
        out: out.stream,
        err: err.stream,
        interrupt: interrupt.signal,
      },
    );
    await out.wait(/"progress"/);
    interrupt.abort();
    assert.equal(await running, 130);
    assert.doesNotMatch(out.text(), /"result"|"error"/);
    assert.match(err.text(), /cancelled \(no terminal event/);
  });
});
