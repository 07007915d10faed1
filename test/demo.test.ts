// `npm run demo`, the repository's main job in one command, keeps working: generate the exec
// example from its proto, launch it through the handshake, stream its bash tool live, and say how
// to open the same provider in the inspector.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { it } from "node:test";
import { repoRoot } from "./support/buf.js";

it("npm run demo generates the exec provider and streams its bash tool", () => {
  const { NODE_TEST_CONTEXT: _context, ...env } = process.env;
  const run = spawnSync("npm", ["run", "demo"], { cwd: repoRoot, encoding: "utf8", env });
  assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
  assert.match(run.stdout, /wrote 2 files under/);
  assert.match(run.stdout, /^bash\s+resource\s+high\s+exclusive\s+120s\s+streaming$/m);
  assert.match(
    run.stdout,
    /line 1 from the child process\nline 2 from the child process\nline 3 from the child process\nline 4 from the child process\nline 5 from the child process\n/,
  );
  assert.match(run.stdout, /exit status: 3\n[\s\S]*"exit_code": 3/);
  assert.match(run.stderr, /done, on stderr/);
  assert.match(run.stdout, /npx harness-tool inspect examples\/exec --config \/tmp\/exec-config\.json/);
});
