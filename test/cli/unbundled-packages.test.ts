// The packages `bundle` and `release` must not inline (cli/release/unbundled-packages.ts,
// cli/release/carried-packages.ts), on small packages written into a temporary project: an addon
// (binding.gyp, a `.node` file, the `bindings` loader), CommonJS reading its own files through
// `__dirname`, a `require` of a computed name. The bundle keeps each out, says why in one line,
// installs it (and what it needs) beside the bundle so the bundle's folder runs wherever it is
// copied; a release refuses a platform it has no addon build for, in one line naming the package,
// the platform and the fix. test/cli/real-providers.test.ts does the same with real packages.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { main } from "../../cli/main.js";
import { abiOf, carriedDigest, carriedFor, prebuildServes } from "../../cli/release/carried-packages.js";
import { hostPlatformKey, releasePlatforms } from "../../cli/release/release-platforms.js";
import { missingBuiltins } from "../../cli/release/single-executable.js";
import { bundleAsScript, supervisorAssetKey, unpackCarried } from "../../cli/release/script-bundle.js";
import type { KeptPackage } from "../../cli/release/unbundled-packages.js";
import { captureStream } from "../support/captured-stream.js";

/** Writes `files` (path -> text) under `root`. */
function writeTree(root: string, files: Record<string, string>): void {
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  }
}

/** Runs the CLI; its exit code and what it wrote. */
async function cli(argv: readonly string[]): Promise<{ code: number; out: string; err: string }> {
  const out = captureStream();
  const err = captureStream();
  let code: number;
  try {
    code = await main(argv, { out: out.stream, err: err.stream });
  } catch (error) {
    return { code: -1, out: out.text(), err: `${err.text()}${String(error)}` };
  }
  return { code, out: out.text(), err: err.text() };
}

const pkg = (name: string, extra: object = {}) =>
  JSON.stringify({ name, version: "1.2.3", main: "index.js", ...extra });

describe("packages a bundle must not inline", () => {
  let dir = "";
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), "harness-tool-unbundled-"));
    writeTree(dir, {
      "package.json": JSON.stringify({ name: "project", type: "module", private: true }),
      // CommonJS that finds its data file through __dirname (an inlined copy has no __dirname).
      "node_modules/reads-own-files/package.json": pkg("reads-own-files", { dependencies: { "helper-dep": "1" } }),
      "node_modules/reads-own-files/index.js":
        'const fs = require("node:fs");\nconst helper = require("helper-dep");\nmodule.exports = helper(fs.readFileSync(require("node:path").join(__dirname, "data.txt"), "utf8"));\n',
      "node_modules/reads-own-files/data.txt": "own data",
      "node_modules/helper-dep/package.json": pkg("helper-dep"),
      "node_modules/helper-dep/index.js": "module.exports = (s) => `<${s}>`;\n",
      // A guarded test of __dirname does not read it: inlined as usual.
      "node_modules/guarded/package.json": pkg("guarded"),
      "node_modules/guarded/index.js":
        'module.exports = typeof __dirname === "undefined" ? "no dirname" : "dirname";\n',
      // A require esbuild cannot follow.
      "node_modules/computed-require/package.json": pkg("computed-require"),
      "node_modules/computed-require/index.js":
        'const name = "./" + ["pl", "ugin.js"].join("");\nmodule.exports = require(name);\n',
      "node_modules/computed-require/plugin.js": 'module.exports = "plugin loaded";\n',
      // A native addon: binding.gyp, the bindings loader, its build (a stand-in .node file).
      "node_modules/fake-addon/package.json": pkg("fake-addon", { dependencies: { bindings: "1" } }),
      "node_modules/fake-addon/index.js": 'module.exports = require("bindings")("fake_addon.node");\n',
      "node_modules/fake-addon/binding.gyp": "{}",
      "node_modules/fake-addon/src/addon.cc": "// the addon's source",
      "node_modules/fake-addon/build/Release/fake_addon.node": "not really an addon",
      "node_modules/fake-addon/build/Release/obj.target/fake_addon.node": "a copy the build leaves behind",
      "node_modules/fake-addon/build/Release/obj.target/addon.o": "an object file",
      "node_modules/bindings/package.json": pkg("bindings"),
      "node_modules/bindings/index.js": "module.exports = () => { throw new Error('no addon here'); };\n",
      // An addon whose build is missing (its install script did not run).
      "node_modules/unbuilt-addon/package.json": pkg("unbuilt-addon", { gypfile: true }),
      "node_modules/unbuilt-addon/index.js": "module.exports = 1;\n",
      // A package that loads the per-platform package npm installed for this machine (os/cpu).
      "node_modules/per-platform/package.json": pkg("per-platform", {
        optionalDependencies: {
          "per-platform-linux-x64": "1",
          "per-platform-darwin-x64": "1",
          "per-platform-linux-arm64": "1",
        },
      }),
      "node_modules/per-platform/index.js":
        "module.exports = require(`per-platform-${process.platform}-${process.arch}`);\n",
      "node_modules/per-platform-linux-x64/package.json": pkg("per-platform-linux-x64", {
        os: ["linux"],
        cpu: ["x64"],
      }),
      "node_modules/per-platform-linux-x64/addon.node": "linux x64",
      "node_modules/per-platform-darwin-x64/package.json": pkg("per-platform-darwin-x64", {
        os: ["darwin"],
        cpu: ["x64"],
      }),
      "node_modules/per-platform-darwin-x64/addon.node": "darwin x64",
      "src/per-platform.ts": 'import loaded from "per-platform";\nconsole.log(loaded);\n',
      "src/plain.ts": [
        'import data from "reads-own-files";',
        'import guarded from "guarded";',
        'import computed from "computed-require";',
        "console.log(JSON.stringify({ data, guarded, computed }));",
      ].join("\n"),
      "src/addon.ts": 'import addon from "fake-addon";\nconsole.log(addon);\n',
      "src/unbuilt.ts": 'import addon from "unbuilt-addon";\nconsole.log(addon);\n',
      "src/sqlite.ts": 'import { DatabaseSync } from "node:sqlite";\nconsole.log(new DatabaseSync(":memory:"));\n',
      // A node without node:sqlite (as Node before 22.5): this node, its module.isBuiltin told so first.
      "no-sqlite.cjs": [
        'const m = require("node:module");',
        "const isBuiltin = m.isBuiltin;",
        'm.isBuiltin = (name) => name !== "node:sqlite" && isBuiltin(name);',
      ].join("\n"),
      "old-node": `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} --require ${JSON.stringify(path.join(dir, "no-sqlite.cjs"))} "$@"\n`,
    });
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("keeps CommonJS that reads __dirname and a computed require out, says why, and the bundle's folder runs when copied elsewhere", async () => {
    const outfile = path.join(dir, "dist/plain.mjs");
    const run = await cli(["bundle", path.join(dir, "src/plain.ts"), "--outfile", outfile]);
    assert.equal(run.code, 0, run.err);
    const lines = run.out.trim().split("\n");
    assert.ok(
      lines.includes("kept reads-own-files@1.2.3 out of the bundle: reads __dirname to find its own files (index.js)"),
      run.out,
    );
    assert.ok(
      lines.includes("kept computed-require@1.2.3 out of the bundle: calls require with a computed name (index.js:2)"),
      run.out,
    );
    assert.ok(!run.out.includes("guarded"), run.out);
    assert.match(run.out, /^installed 3 packages \(0\.0 MiB\) into \S*dist\/node_modules: copy \S*dist\/ whole$/m);
    assert.ok(
      existsSync(path.join(dir, "dist/node_modules/helper-dep/index.js")),
      "the dependency of a kept package is installed too",
    );
    // Elsewhere, with no node_modules above it: the kept packages load from the copy's own.
    const elsewhere = mkdtempSync(path.join(tmpdir(), "harness-tool-unbundled-copy-"));
    try {
      cpSync(path.join(dir, "dist"), path.join(elsewhere, "dist"), { recursive: true });
      const ran = spawnSync(process.execPath, [path.join(elsewhere, "dist/plain.mjs")], {
        encoding: "utf8",
        cwd: elsewhere,
      });
      assert.equal(ran.status, 0, ran.stderr);
      assert.deepEqual(JSON.parse(ran.stdout), {
        data: "<own data>",
        guarded: "no dirname",
        computed: "plugin loaded",
      });
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it("keeps a native addon out and installs its build, not its sources or object files; --external is left to the user", async () => {
    const outfile = path.join(dir, "addon/provider.mjs");
    const run = await cli(["bundle", path.join(dir, "src/addon.ts"), "--outfile", outfile]);
    assert.equal(run.code, 0, run.err);
    assert.match(
      run.out,
      /^kept fake-addon@1\.2\.3 out of the bundle: a native addon \(binding\.gyp; loads it with bindings; build\/Release\/fake_addon\.node and 1 more \.node files\)$/m,
    );
    const installed = path.join(dir, "addon/node_modules/fake-addon");
    assert.ok(existsSync(path.join(installed, "build/Release/fake_addon.node")));
    assert.ok(existsSync(path.join(dir, "addon/node_modules/bindings/index.js")));
    for (const left of [
      "build/Release/obj.target/fake_addon.node",
      "build/Release/obj.target/addon.o",
      "src/addon.cc",
    ]) {
      assert.ok(!existsSync(path.join(installed, left)), `${left} was installed`);
    }
    assert.match(
      readFileSync(path.join(dir, "addon/provider.bundle.mjs"), "utf8"),
      /from"fake-addon"|from "fake-addon"/,
    );
    // Bundled again with the package named by --external: not kept by the detection, nothing installed.
    const given = await cli([
      "bundle",
      path.join(dir, "src/addon.ts"),
      "--outfile",
      outfile,
      "--external",
      "fake-addon",
    ]);
    assert.equal(given.code, 0, given.err);
    assert.doesNotMatch(given.out, /kept/);
    assert.ok(!existsSync(path.join(dir, "addon/node_modules")), "the node_modules the bundle wrote before is removed");
  });

  it("refuses an addon with no build, naming the package and the fix; never touches a node_modules it did not write", async () => {
    const run = await cli([
      "bundle",
      path.join(dir, "src/unbuilt.ts"),
      "--outfile",
      path.join(dir, "unbuilt/provider.mjs"),
    ]);
    assert.notEqual(run.code, 0);
    assert.match(
      run.err,
      /unbuilt-addon@1\.2\.3 is a native addon with no \.node file built here .*: run npm rebuild unbuilt-addon, then build again/,
    );
    mkdirSync(path.join(dir, "theirs/node_modules"), { recursive: true });
    const theirs = await cli([
      "bundle",
      path.join(dir, "src/addon.ts"),
      "--outfile",
      path.join(dir, "theirs/provider.mjs"),
    ]);
    assert.notEqual(theirs.code, 0);
    assert.match(
      theirs.err,
      /theirs\/node_modules exists and was not written by harness-tool bundle: remove it or bundle into another folder/,
    );
  });

  it("a release's program requires what was kept out; a platform with no addon build is refused before anything is written", async () => {
    const script = await bundleAsScript(path.join(dir, "src/addon.ts"));
    assert.deepEqual(
      script.kept.map((k) => k.name),
      ["fake-addon"],
    );
    assert.match(script.script, /require\("fake-addon"\)/);
    const kept = script.kept as KeptPackage[];
    const [arm] = releasePlatforms(["linux_arm64"]);
    const node = { file: process.execPath, origin: "this node" };
    await assert.rejects(
      carriedFor(kept, arm as NonNullable<typeof arm>, node, "24.22.3"),
      /^ReleaseError: fake-addon@1\.2\.3 is a native addon with no build for linux_arm64: it ships no prebuilds\/linux-arm64\/ addon for Node 24\.22\.3, and its build here is for \S+; release without linux_arm64 \(--platform\), or build the release on a linux_arm64 machine$/,
    );
    // A prebuild for the platform, tagged N-API: carried instead of this machine's build.
    writeTree(kept[0]?.root as string, {
      "prebuilds/linux-arm64/node.napi.node": "arm64",
      "prebuilds/darwin-x64/node.napi.node": "mac",
    });
    try {
      const carry = await carriedFor(kept, arm as NonNullable<typeof arm>, node, "24.22.3");
      const keys = carry.files.map((f) => f.key);
      assert.ok(keys.includes("node_modules/fake-addon/prebuilds/linux-arm64/node.napi.node"), keys.join("\n"));
      assert.ok(!keys.some((k) => k.includes("darwin-x64") || k.includes("/build/")), keys.join("\n"));
      assert.equal(carry.digest, carriedDigest([...carry.files].reverse()), "the digest does not depend on the order");
    } finally {
      rmSync(path.join(kept[0]?.root as string, "prebuilds"), { recursive: true, force: true });
    }
  });

  it("this machine's build is loaded with the node the executable embeds: one that does not load is refused", async () => {
    const script = await bundleAsScript(path.join(dir, "src/addon.ts"));
    const host = releasePlatforms([]);
    const node = { file: process.execPath, origin: "this node" };
    await assert.rejects(
      carriedFor(script.kept, host[0] as NonNullable<(typeof host)[0]>, node, undefined),
      /^ReleaseError: fake-addon@1\.2\.3's native addon does not load in the node given for \S+ \(.*\): rebuild it with that Node \(npm rebuild fake-addon\), or embed the Node it was built for \(--node \S+=<node>\)$/,
    );
  });

  it("a package loading per-platform packages: each executable carries its platform's, a platform npm installed none for is refused", async () => {
    const script = await bundleAsScript(path.join(dir, "src/per-platform.ts"));
    assert.deepEqual(
      script.kept.map((k) => [k.name, k.reason]),
      [["per-platform", "loads a per-platform package (per-platform-linux-x64, per-platform-darwin-x64)"]],
    );
    const node = { file: process.execPath, origin: "this node" };
    const [amd64, arm64] = releasePlatforms(["linux_amd64,linux_arm64"]);
    const carry = await carriedFor(script.kept, amd64 as NonNullable<typeof amd64>, node, "24.22.3");
    const keys = carry.files.map((f) => f.key);
    assert.ok(keys.includes("node_modules/per-platform-linux-x64/addon.node"), keys.join("\n"));
    assert.ok(!keys.some((k) => k.includes("darwin")), keys.join("\n"));
    await assert.rejects(
      carriedFor(script.kept, arm64 as NonNullable<typeof arm64>, node, "24.22.3"),
      /^ReleaseError: per-platform@1\.2\.3 loads a per-platform package and none is installed for linux_arm64: install it \(npm install --os=linux --cpu=arm64\), or release without linux_arm64 \(--platform\)$/,
    );
  });

  it("a release whose Node lacks a built-in the program uses (node:sqlite) is refused before anything is written", async () => {
    const script = await bundleAsScript(path.join(dir, "src/sqlite.ts"));
    assert.deepEqual(script.builtins, ["node:sqlite"]);
    assert.match(script.script, /require\("node:sqlite"\)/);
    assert.deepEqual(await missingBuiltins(process.execPath, ["node:fs", "node:path"]), []);
    chmodSync(path.join(dir, "old-node"), 0o755);
    assert.deepEqual(await missingBuiltins(path.join(dir, "old-node"), ["node:fs", "node:sqlite"]), ["node:sqlite"]);
    const host = hostPlatformKey();
    if (host === undefined) return;
    const outDir = path.join(dir, "sqlite-release");
    const run = await cli([
      "release",
      path.join(dir, "src/sqlite.ts"),
      "--platform",
      host,
      "--out-dir",
      outDir,
      "--node",
      `${host}=${path.join(dir, "old-node")}`,
    ]);
    assert.equal(run.code, 1, run.err);
    assert.equal(
      run.err,
      `harness-tool release: the program uses node:sqlite, which the node given for ${host} does not have: embed a Node that has it (--node ${host}=<node>)\n`,
    );
    assert.ok(!existsSync(outDir), "nothing was written");
  });

  it("reads prebuilds' tags: napi everywhere, abi<N> only for its Node", () => {
    assert.equal(abiOf("24.22.3"), 137);
    assert.equal(abiOf("20.20.2"), 115);
    assert.ok(prebuildServes("prebuilds/linux-x64/node.napi.glibc.node", undefined));
    assert.ok(prebuildServes("prebuilds/linux-x64/better-sqlite3.abi137.node", 137));
    assert.ok(!prebuildServes("prebuilds/linux-x64/better-sqlite3.abi115.node", 137));
    assert.ok(!prebuildServes("prebuilds/linux-x64/better-sqlite3.abi137.node", undefined));
  });
});

describe("a single executable's unpacking of the packages it carries", () => {
  type Unpack = (seaRequire: NodeJS.Require, keys: readonly string[], digest: string) => string;
  const unpackFolder = new Function(`return (${unpackCarried});`)() as Unpack;
  /** Unpacks, and a require that resolves from the folder as the executable's program does. */
  const unpack = (seaRequire: NodeJS.Require, keys: readonly string[], digest: string) =>
    createRequire(path.join(unpackFolder(seaRequire, keys, digest), "provider.cjs"));
  const assets: Record<string, string> = {
    "node_modules/carried/package.json": JSON.stringify({ name: "carried", main: "index.js" }),
    "node_modules/carried/index.js": 'module.exports = "carried " + require("node:path").basename(__dirname);\n',
    [supervisorAssetKey]: "#!/bin/sh\necho supervised\n",
  };
  let dir = "";
  let reads = 0;
  /** Node's require, with `node:sea` answering from `assets` (and counting what it reads). */
  const seaRequire = ((id: string) => {
    if (id === "node:sea") {
      return {
        getRawAsset: (key: string) => {
          reads++;
          const bytes = Buffer.from(assets[key] as string);
          return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length);
        },
      };
    }
    return createRequire(import.meta.url)(id);
  }) as NodeJS.Require;
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), "harness-tool-unpack-"));
  });
  after(() => {
    delete process.env.HARNESS_TOOL_PROVIDER_FILES;
    rmSync(dir, { recursive: true, force: true });
  });

  it("unpacks once into a folder named by the digest, and its require finds the packages there", () => {
    process.env.HARNESS_TOOL_PROVIDER_FILES = path.join(dir, "files");
    const digest = "a".repeat(64);
    const required = unpack(seaRequire, Object.keys(assets), digest);
    assert.equal(required("carried"), "carried carried");
    assert.equal(reads, 3);
    // The supervisor program is unpacked executable; the packages' files are not.
    assert.equal(statSync(path.join(dir, "files", digest, supervisorAssetKey)).mode & 0o777, 0o755);
    assert.equal(statSync(path.join(dir, "files", digest, "node_modules/carried/index.js")).mode & 0o777, 0o644);
    assert.ok(existsSync(path.join(dir, "files", digest, ".complete")));
    // The second run reads nothing: the folder is complete.
    assert.equal(unpack(seaRequire, Object.keys(assets), digest)("carried"), "carried carried");
    assert.equal(reads, 3);
    assert.deepEqual(readdirSync(path.join(dir, "files")), [digest], "no partial folder is left");
  });

  it("a folder it cannot write is one line naming it and HARNESS_TOOL_PROVIDER_FILES", () => {
    writeFileSync(path.join(dir, "a-file"), "");
    process.env.HARNESS_TOOL_PROVIDER_FILES = path.join(dir, "a-file", "files");
    assert.throws(
      () => unpack(seaRequire, Object.keys(assets), "b".repeat(64)),
      /^Error: could not unpack the provider's files into \S+a-file\/files\/b{64} \(.*\): set HARNESS_TOOL_PROVIDER_FILES to a writable folder$/,
    );
  });
});
