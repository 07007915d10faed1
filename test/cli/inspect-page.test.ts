// The inspector page's bundle (cli/inspector/page-dist) is committed: a fresh esbuild build of
// cli/inspector/page must give exactly the committed files, the page's sources type-check under both
// compilers, and the bundle loads nothing from outside the package.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import path from "node:path";
import { it } from "node:test";
import { buildPage, committedPage } from "../../cli/inspector/page/build-page.mjs";
import { repoRoot } from "../support/buf.js";

it("cli/inspector/page-dist matches a fresh build of cli/inspector/page", async () => {
  const built = await buildPage();
  const committed = committedPage();
  assert.deepEqual(Object.keys(built).sort(), ["inspector.css", "inspector.js"]);
  for (const name of Object.keys(built)) {
    assert.ok(
      built[name] === committed[name],
      `cli/inspector/page-dist/${name} is stale; run \`npm run build:inspector\` and commit`,
    );
  }
});

it("the page bundle imports nothing and names no remote script or style", () => {
  const { "inspector.js": script = "", "inspector.css": style = "" } = committedPage();
  assert.doesNotMatch(script, /\bimport\s*\(|\bfrom\s*["']|^import\s/m, "the bundle must be self-contained");
  assert.doesNotMatch(style, /@import|url\(\s*["']?https?:/);
});

for (const [name, command] of [
  ["TypeScript 5.9", ["node", path.join(repoRoot, "node_modules/typescript/bin/tsc")]],
  ["TypeScript 7", [path.join(repoRoot, "node_modules/typescript7/bin/tsc")]],
] as const) {
  it(`the page's sources type-check under ${name}`, () => {
    const [bin, ...args] = command;
    const run = spawnSync(bin, [...args, "-p", "cli/inspector/page/tsconfig.json", "--pretty", "false"], {
      cwd: repoRoot,
      encoding: "utf8",
    });
    assert.equal(run.status, 0, `${run.stdout}${run.stderr}`);
  });
}
