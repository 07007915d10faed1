// `harness-tool release` carries the Go supervisor (supervisor-go/): the test cross-builds it for
// every platform (GOOS/GOARCH) and hands each build in with --supervisor-binary. Each executable
// carries its platform's build (release-manifest.json names it and its sha256); the linux_amd64
// executable, launched as the kernel launches it, unpacks the program and hands supervision to it
// (execve: /proc/<pid>/exe of the launched process is the unpacked file) and a secret written to fd
// 2 never reaches the host; the linux_arm64 one, under qemu-user, unpacks its arm64 build, which
// supervises it there; a platform with no supervisor program keeps the Node supervisor, said in one
// warning line.
//
// Skips without `go` (fails under HARNESS_TOOL_REQUIRE_INTEROP=1).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { launch } from "harness-tool/testing";
import { hostPlatformKey, lockFilePlatformKeys } from "../../cli/release/release-platforms.js";
import { repoRoot } from "../support/buf.js";
import { buildSupervisorGo, goMissing } from "../support/supervisor-go-builds.js";
import { installedSupervisorPackage } from "../support/supervisor-package.mjs";
import { cli } from "./support/run-cli.js";

const fixture = path.join(repoRoot, "test/runtime/transport/fixtures/below-javascript-provider.ts");
const secret = "sk-live-7f3a9c2e1b5d";
const host = hostPlatformKey();
const requireInterop = process.env.HARNESS_TOOL_REQUIRE_INTEROP === "1";
// The node binaries, unpacked once for every run on this machine (as test/cli/release.test.ts does).
process.env.HARNESS_TOOL_NODE_CACHE ??= path.join(tmpdir(), "harness-tool-node-binaries");

const sha256 = (file: string) => createHash("sha256").update(readFileSync(file)).digest("hex");

/** Why an optional tool is missing here: a skip, or a failure when the interop tests are required. */
function missing(what: string | undefined): string | false {
  if (what === undefined) return false;
  if (requireInterop) throw new Error(`${what} (HARNESS_TOOL_REQUIRE_INTEROP=1)`);
  return what;
}

/** What release-manifest.json says of one executable. */
interface ManifestEntry {
  readonly file: string;
  readonly platform: string | null;
  readonly sha256: string;
  readonly supervisor: { program: string; origin?: string; sha256?: string } | null;
}

function manifest(dir: string): ManifestEntry[] {
  return (JSON.parse(readFileSync(path.join(dir, "release-manifest.json"), "utf8")) as { artifacts: ManifestEntry[] })
    .artifacts;
}

type Launched = Awaited<ReturnType<typeof launch>>;

/**
 * Has the configured provider write the secret below JavaScript to fd 2 (and through a child
 * inheriting fd 2, and split across writes), and checks each line reached the host redacted.
 */
async function secretRedacted(launched: Launched): Promise<void> {
  for (const leak of ["write-sync-2", "raw-debug", "inherited-stderr-child", "split-writes"]) {
    const outcome = await launched.invoke({ id: leak, toolName: "leak", arguments: { path: leak } }).done;
    assert.equal(outcome.events.at(-1)?.event.case, "result", JSON.stringify(outcome.events));
    const deadline = Date.now() + 10_000;
    while (!launched.stderr.some((e) => e.raw.includes(`leak via ${leak}:`)) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 20));
    assert.ok(
      launched.stderr.some((e) => e.raw.includes(`leak via ${leak}:`)),
      `no "leak via ${leak}" line:\n${launched.stderr.map((e) => e.raw).join("\n")}`,
    );
  }
  const leaked = launched.stderr.filter((e) => e.raw.includes(secret) || e.raw.includes(secret.slice(0, 8)));
  assert.deepEqual(
    leaked.map((e) => e.raw),
    [],
    "the secret reached the host",
  );
}

/** Configures the secret; the pid of the process serving the provider (under a supervisor, not the launched one). */
async function servingPid(launched: Launched): Promise<number> {
  await launched.configure({ api_key: secret });
  const outcome = await launched.invoke({ id: "identity", toolName: "identity", arguments: { text: "" } }).done;
  const last = outcome.events.at(-1)?.event;
  assert.ok(last?.case === "result", JSON.stringify(outcome.events));
  return Number((last.value.payload as { pid?: number }).pid);
}

const goProblem = goMissing();

describe("harness-tool release carries the Go supervisor", {
  skip: host === undefined ? `no release platform for ${process.platform} ${process.arch}` : missing(goProblem),
}, () => {
  let dir = "";
  let builds = new Map<string, string>();
  let release = { code: 0, out: "", err: "" };
  const out = () => path.join(dir, "release");
  const executable = (key: string) => path.join(out(), `below-javascript_0.0.1_${key}`);

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "harness-tool-release-supervisor-"));
    builds = buildSupervisorGo(lockFilePlatformKeys, dir);
    const given = [...builds].flatMap(([key, file]) => ["--supervisor-binary", `${key}=${file}`]);
    release = await cli(["release", fixture, "--out-dir", out(), ...given]);
    assert.equal(release.code, 0, release.err);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("each executable carries its platform's build; release-manifest.json names it and its sha256", () => {
    assert.doesNotMatch(release.err, /warning:/);
    const entries = manifest(out());
    assert.deepEqual(entries.find((e) => e.platform === null)?.supervisor, null, "the .mjs carries none");
    const binaries = new Map([...builds].map(([key, file]) => [key, readFileSync(file)]));
    for (const key of lockFilePlatformKeys) {
      const build = builds.get(key) as string;
      const entry = entries.find((e) => e.platform === key);
      assert.deepEqual(entry?.supervisor, { program: "harness-tool-supervisor", origin: build, sha256: sha256(build) });
      assert.equal(entry?.sha256, sha256(executable(key)));
      assert.match(release.err, new RegExp(`below-javascript_0\\.0\\.1_${key}: .*, supervised by ${build}\\n`));
      const bytes = readFileSync(executable(key));
      for (const [other, binary] of binaries)
        assert.equal(bytes.includes(binary), other === key, `${key}'s executable and ${other}'s build`);
    }
  });

  it("the same sources and builds give the same bytes", async () => {
    const again = path.join(dir, "again");
    const rebuilt = await cli([
      "release",
      fixture,
      "--platform",
      "linux_amd64",
      "--supervisor-binary",
      `linux_amd64=${builds.get("linux_amd64")}`,
      "--out-dir",
      again,
    ]);
    assert.equal(rebuilt.code, 0, rebuilt.err);
    assert.equal(sha256(path.join(again, "below-javascript_0.0.1_linux_amd64")), sha256(executable("linux_amd64")));
  });

  it("linux_amd64: the launched process becomes the unpacked Go program, which supervises the provider and redacts fd 2", {
    skip: host === "linux_amd64" ? false : `runs on linux_amd64, not ${host}`,
  }, async () => {
    const files = path.join(dir, "provider-files");
    const launched = await launch(executable("linux_amd64"), { env: { HARNESS_TOOL_PROVIDER_FILES: files } });
    try {
      const supervisor = readlinkSync(`/proc/${launched.pid}/exe`);
      assert.equal(path.dirname(path.dirname(supervisor)), files, supervisor);
      assert.equal(path.basename(supervisor), "harness-tool-supervisor");
      assert.equal(sha256(supervisor), sha256(builds.get("linux_amd64") as string));
      const serving = await servingPid(launched);
      assert.notEqual(serving, launched.pid, "the provider runs under the supervisor");
      assert.equal(readlinkSync(`/proc/${serving}/exe`), realpathSync(executable("linux_amd64")));
      await secretRedacted(launched);
    } finally {
      await launched.kill();
    }
  });

  // Node's arm64 build loads libc, libstdc++ and libatomic (Node 26) from here.
  const arm64Root = "/usr/aarch64-linux-gnu";
  const qemu =
    spawnSync("qemu-aarch64", ["--version"]).status === 0 &&
    ["libc.so.6", "libstdc++.so.6", "libatomic.so.1"].every((l) => existsSync(path.join(arm64Root, "lib", l)));
  it("linux_arm64 under qemu-user: the executable unpacks its arm64 build, which supervises it and redacts fd 2", {
    skip:
      host !== "linux_amd64"
        ? `runs on linux_amd64 (qemu-user), not ${host}`
        : qemu
          ? false
          : missing(
              "qemu-aarch64 or the arm64 libraries (apt-get install qemu-user libc6-arm64-cross libstdc++6-arm64-cross libatomic1-arm64-cross) are not installed",
            ),
  }, async () => {
    // Without binfmt_misc an arm64 process under qemu-user cannot exec an arm64 file (the host
    // kernel runs it), so the hand-over goes through a script, named as HARNESS_TOOL_SUPERVISOR_BINARY
    // (which wins over the carried program): it starts the program the executable unpacked, under
    // qemu, on the same command, which it starts under qemu too.
    const files = path.join(dir, "provider-files-arm64");
    const handedTo = path.join(dir, "handed-to");
    const script = path.join(dir, "through-qemu.sh");
    writeFileSync(
      script,
      [
        "#!/bin/sh",
        `program=$(ls "${files}"/*/harness-tool-supervisor)`,
        `printf '%s\\n' "$program" > "${handedTo}"`,
        `exec qemu-aarch64 -L ${arm64Root} "$program" qemu-aarch64 -L ${arm64Root} "$@"`,
        "",
      ].join("\n"),
    );
    chmodSync(script, 0o755);
    const launched = await launch("qemu-aarch64", {
      args: ["-L", arm64Root, executable("linux_arm64")],
      env: { HARNESS_TOOL_PROVIDER_FILES: files, HARNESS_TOOL_SUPERVISOR_BINARY: script },
      handshakeTimeoutMs: 120_000,
    });
    try {
      const program = readFileSync(handedTo, "utf8").trim();
      assert.equal(path.dirname(path.dirname(program)), files, program);
      assert.equal(sha256(program), sha256(builds.get("linux_arm64") as string));
      // The launched process is the script's qemu running the arm64 Go program.
      const cmdline = readFileSync(`/proc/${launched.pid}/cmdline`, "utf8").split("\0");
      assert.deepEqual(cmdline.slice(0, 4), ["qemu-aarch64", "-L", arm64Root, program]);
      assert.notEqual(await servingPid(launched), launched.pid, "the provider runs under the supervisor");
      await secretRedacted(launched);
    } finally {
      await launched.kill();
    }
  });

  it("a platform with no supervisor program keeps the Node supervisor: one warning line with the fix, and it still redacts", {
    skip: host === "linux_amd64" ? false : `runs on linux_amd64, not ${host}`,
  }, async () => {
    const plain = path.join(dir, "plain");
    // The test run installs this platform's package in the checkout (test/run.mjs), where the
    // release would find it: out of the way while the release searches, put back at once.
    const hidden = `${installedSupervisorPackage}.hidden-by-release-test`;
    const wasInstalled = existsSync(installedSupervisorPackage);
    if (wasInstalled) renameSync(installedSupervisorPackage, hidden);
    let built: Awaited<ReturnType<typeof cli>>;
    try {
      built = await cli(["release", fixture, "--platform", "linux_amd64", "--out-dir", plain]);
    } finally {
      if (wasInstalled) renameSync(hidden, installedSupervisorPackage);
    }
    assert.equal(built.code, 0, built.err);
    const warnings = built.err.split("\n").filter((l) => l.startsWith("warning:"));
    assert.equal(warnings.length, 1, built.err);
    assert.match(
      warnings[0] as string,
      /^warning: linux_amd64 keeps the Node supervisor \(a second Node process per launch\) for want of the Go one: (the npm registry has no|npm could not fetch) @harness-tool\/supervisor-linux-x64@\d+\.\d+\.\d+.*; install the @harness-tool\/supervisor-<os>-<arch> package, or name the binary with --supervisor-binary <os_arch>=<file>$/,
    );
    assert.deepEqual(manifest(plain).find((e) => e.platform === "linux_amd64")?.supervisor, { program: "node" });
    const file = path.join(plain, "below-javascript_0.0.1_linux_amd64");
    const launched = await launch(file, { env: { HARNESS_TOOL_PROVIDER_FILES: path.join(dir, "plain-files") } });
    try {
      assert.equal(readlinkSync(`/proc/${launched.pid}/exe`), realpathSync(file), "the Node supervisor");
      assert.notEqual(await servingPid(launched), launched.pid);
      await secretRedacted(launched);
    } finally {
      await launched.kill();
    }
  });
});
