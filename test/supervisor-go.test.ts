// The Go supervisor candidate (supervisor-go/): its own `go test` (the byte filter against the
// redactor's forms, split secrets, the handshake line, the channel, pass-through, signals, the
// orphan watchdog on SIGKILL). Skips without `go` unless HARNESS_TOOL_REQUIRE_INTEROP is "1".
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import path from "node:path";
import { it } from "node:test";
import { repoRoot } from "./support/buf.js";

const go = spawnSync("go", ["version"], { encoding: "utf8" });
const skip = go.status !== 0 && process.env.HARNESS_TOOL_REQUIRE_INTEROP !== "1" ? "`go` is not installed" : false;

it("supervisor-go: go vet and go test pass", { skip }, () => {
  const cwd = path.join(repoRoot, "supervisor-go");
  const env = { ...process.env, CGO_ENABLED: "0", GOFLAGS: "-mod=readonly" };
  const vet = spawnSync("go", ["vet", "./..."], { cwd, env, encoding: "utf8", timeout: 300_000 });
  assert.equal(vet.status, 0, `${vet.stdout}${vet.stderr}`);
  const test = spawnSync("go", ["test", "-count=1", "./..."], { cwd, env, encoding: "utf8", timeout: 300_000 });
  assert.equal(test.status, 0, `${test.stdout}${test.stderr}`);
});
