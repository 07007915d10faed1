// The plugin's diagnostics name a proto file as buf does, from the folder buf runs in
// (`proto/weather/v1/weather.proto:20:7`), not by its name inside the buf module
// (`weather/v1/weather.proto`), so an editor or terminal can open it.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { moduleFoldersIn, sourcePathsFrom } from "../../plugin/model/source-paths.js";
import { repoRoot, runBuf } from "../support/buf.js";

const weatherProto = `syntax = "proto3";

package weather.v1;

import "harnesstool/v1/annotations.proto";

// Weather tools.
service WeatherService {
  // Today's forecast.
  rpc Forecast(ForecastRequest) returns (ForecastResponse) {
    option (harnesstool.v1.tool) = {
      kind: TOOL_KIND_DATA_SOURCE
      risk: RISK_CLASS_HIGH
      concurrency: {safe: true}
      idempotent: true
    };
  }
}

// Where.
message ForecastRequest {
  // The city.
  string city = 1;
}

// What.
message ForecastResponse {
  // The forecast.
  string text = 1;
}
`;

function files(root: string, entries: Record<string, string>): void {
  for (const [name, text] of Object.entries(entries)) {
    mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    writeFileSync(path.join(root, name), text);
  }
}

describe("diagnostic paths", () => {
  let root = "";
  before(() => {
    root = mkdtempSync(path.join(tmpdir(), "harness-tool-paths-"));
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it("name a proto under proto/ from the repository root, as buf does, in errors and warnings", () => {
    const repo = path.join(root, "repo");
    files(repo, {
      "buf.yaml": "version: v2\nmodules:\n  - path: proto\n  - path: harness-proto # the annotations\n",
      "buf.gen.yaml": [
        "version: v2",
        "inputs:",
        "  - directory: proto",
        "plugins:",
        `  - local: ["node", ${JSON.stringify(path.join(repoRoot, "plugin/protoc-gen-harness-tool.mjs"))}]`,
        "    out: src/gen",
        "",
      ].join("\n"),
      "proto/weather/v1/weather.proto": weatherProto,
    });
    symlinkSync(path.join(repoRoot, "proto"), path.join(repo, "harness-proto"));
    const run = runBuf(["generate"], repo);
    assert.equal(run.status, 1, run.stderr);
    // The error at the risk line, the warning (no default_timeout) at the tool option.
    assert.match(
      run.stderr,
      /(^|: )proto\/weather\/v1\/weather\.proto:13:7: WeatherService\.Forecast: a data_source tool must be read_only/m,
    );
    assert.match(run.stderr, /^proto\/weather\/v1\/weather\.proto:11:12: WeatherService\.Forecast: warning: /m);
    assert.doesNotMatch(run.stderr, /(^|[\s:])weather\/v1\/weather\.proto/m);
  });

  it("find the module folder from buf.yaml, buf.work.yaml, buf.gen.yaml or a sub-folder", () => {
    assert.deepEqual(moduleFoldersIn("version: v2\nmodules:\n  - path: proto\n  - path: 'vendor/protos' # theirs\n"), [
      "proto",
      "vendor/protos",
    ]);
    assert.deepEqual(moduleFoldersIn('version: v1\ndirectories:\n  - api\n  - "third"\nother:\n  - not-a-folder\n'), [
      "api",
      "third",
    ]);
    assert.deepEqual(moduleFoldersIn("version: v2\ninputs:\n  - directory: schemas\nplugins:\n  - local: x\n"), [
      "schemas",
    ]);

    const repo = path.join(root, "declared");
    files(repo, {
      "buf.work.yaml": "version: v1\ndirectories:\n  - api\n",
      "api/a/v1/a.proto": "",
      "other/b/v1/b.proto": "",
      "node_modules/pkg/c/v1/c.proto": "",
      "root.proto": "",
    });
    const sourcePath = sourcePathsFrom(repo);
    assert.equal(sourcePath("a/v1/a.proto"), "api/a/v1/a.proto");
    assert.equal(sourcePath("b/v1/b.proto"), "other/b/v1/b.proto", "a sub-folder no buf file names");
    // A module at the root keeps its names; a file found nowhere (an installed package's) too.
    assert.equal(sourcePath("root.proto"), "root.proto");
    assert.equal(sourcePath("c/v1/c.proto"), "c/v1/c.proto");
  });
});
