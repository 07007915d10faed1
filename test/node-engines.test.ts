// The Node versions harness-tool's packages claim are true: each workspace package's `engines`
// floor satisfies the engines of every package it brings (its dependencies and required peers,
// followed through the lockfile; for the plugin, the packages its bundle holds as well), the
// scaffold claims the CLI's floor, every floor is the oldest LTS line Node still supports (the
// table of cli/release/node-lines.ts: no package claims an end-of-life Node), Node 22, which CI
// runs the floor leg on, satisfies every package, the dev tools included, and every esbuild target
// in the sources (bundle, release, the bench's builds) is that floor.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { supportedNodeLines } from "../cli/release/node-lines.js";
import { scaffoldFiles } from "../cli/templates/scaffold-files.js";
import { repoRoot } from "./support/buf.js";

type Version = [number, number, number];

function parseVersion(text: string): Version {
  const [major = 0, minor = 0, patch = 0] = text
    .replace(/^v/, "")
    .replace(/\.\*$/, "")
    .split(".")
    .map((p) => Number.parseInt(p, 10) || 0);
  return [major, minor, patch];
}

function compare(a: Version, b: Version): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

/** Whether `version` satisfies an engines range of the forms the lockfile holds (>=, ^, bare majors, `||`). */
function satisfies(version: Version, range: string): boolean {
  return range.split("||").some((alternative) =>
    alternative
      .replace(/(>=|<=|>|<|=|\^|~)\s+/g, "$1")
      .trim()
      .split(/\s+/)
      .filter((c) => c !== "")
      .every((comparator) => {
        const m = /^(>=|<=|>|<|=|\^|~)?(.+)$/.exec(comparator);
        if (!m) return false;
        const bound = parseVersion(m[2] ?? "");
        const c = compare(version, bound);
        switch (m[1]) {
          case ">=":
            return c >= 0;
          case ">":
            return c > 0;
          case "<=":
            return c <= 0;
          case "<":
            return c < 0;
          case "^":
            return c >= 0 && version[0] === bound[0];
          case "~":
            return c >= 0 && version[0] === bound[0] && version[1] === bound[1];
          default:
            // A bare "20" or "6.*" means that major line.
            return /^\d+(\.\*)?$/.test(m[2] ?? "") ? version[0] === bound[0] : c === 0;
        }
      }),
  );
}

interface LockEntry {
  name?: string;
  dev?: boolean;
  link?: boolean;
  resolved?: string;
  engines?: { node?: string } | string[];
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

const lock = JSON.parse(readFileSync(path.join(repoRoot, "package-lock.json"), "utf8")) as {
  packages: Record<string, LockEntry>;
};
const nodeRange = (e: LockEntry | undefined) => (e?.engines && !Array.isArray(e.engines) ? e.engines.node : undefined);
const engines = Object.entries(lock.packages).flatMap(([name, p]) => {
  const range = nodeRange(p);
  return range ? [{ name: name || "the workspace root", dev: p.dev === true, range }] : [];
});

/** Where Node finds `name` from the package at lockfile path `from`: its own node_modules, then upwards. */
function lookup(from: string, name: string): string | undefined {
  let dir = from;
  for (;;) {
    const candidate = dir === "" ? `node_modules/${name}` : `${dir}/node_modules/${name}`;
    const entry = lock.packages[candidate];
    if (entry) return entry.link && entry.resolved !== undefined ? entry.resolved : candidate;
    if (dir === "") return undefined;
    const at = dir.lastIndexOf("/node_modules/");
    dir = at < 0 ? "" : dir.slice(0, at);
  }
}

const requiredPeers = (e: LockEntry) =>
  Object.keys(e.peerDependencies ?? {}).filter((n) => e.peerDependenciesMeta?.[n]?.optional !== true);

/** Every package `workspace` brings into an installation: lockfile path -> package name. */
function closure(workspace: string, withBundled: boolean): Map<string, string> {
  const seen = new Map<string, string>();
  const visit = (at: string, names: readonly string[]) => {
    for (const name of names) {
      const found = lookup(at, name);
      if (found === undefined || seen.has(found)) continue;
      seen.set(found, name);
      const e = lock.packages[found] ?? {};
      visit(found, [...Object.keys(e.dependencies ?? {}), ...requiredPeers(e)]);
    }
  };
  const own = lock.packages[workspace] ?? {};
  visit(workspace, [
    ...Object.keys(own.dependencies ?? {}),
    ...requiredPeers(own),
    ...(withBundled ? Object.keys(own.devDependencies ?? {}) : []),
  ]);
  return seen;
}

const floorOf = (range: string | undefined) => parseVersion(/^>=\s*(\S+)$/.exec(range ?? "")?.[1] ?? "");

/** The workspaces, and which dependency sets each floor (undefined: our own choice, CI's oldest Node). */
const workspaces = [
  { dir: "runtime", bundles: false, floorFrom: undefined },
  { dir: "cli", bundles: false, floorFrom: undefined },
  // The plugin's bin is one bundle (plugin/bundle-plugin.mjs): what it bundles is what it runs.
  { dir: "plugin", bundles: true, floorFrom: undefined },
] as const;

describe("Node engines", () => {
  it("the range check reads the lockfile's forms", () => {
    assert.equal(satisfies([20, 12, 0], ">= 20.12.0"), true);
    assert.equal(satisfies([20, 11, 1], ">= 20.12.0"), false);
    assert.equal(satisfies([20, 12, 0], "18 || 20 || >=22"), true);
    assert.equal(satisfies([21, 0, 0], "20 || >=22"), false);
    assert.equal(satisfies([20, 12, 0], ">=22"), false);
    assert.equal(satisfies([20, 12, 0], "^8.16.0 || ^10.6.0 || >=11.0.0"), true);
    assert.equal(satisfies([10, 0, 0], "6.* || 8.* || >= 10.*"), true);
  });

  for (const w of workspaces) {
    const entry = lock.packages[w.dir];
    it(`${entry?.name ?? w.dir}: its engines floor satisfies every package it brings`, () => {
      const range = nodeRange(entry);
      assert.ok(range, `${w.dir}/package.json has no engines.node`);
      const floor = floorOf(range);
      const brought = closure(w.dir, w.bundles);
      assert.ok(brought.size > 0, `${w.dir}: no dependencies found in the lockfile: the walk is broken`);
      const refused = [...brought.keys()].filter((p) => {
        const needs = nodeRange(lock.packages[p]);
        return needs !== undefined && !satisfies(floor, needs);
      });
      assert.deepEqual(refused, [], `${w.dir}: engines.node ${range} is below what these need`);
      if (w.floorFrom !== undefined) {
        // And no higher than needed: the package named as the reason refuses the minor line below.
        const reason = [...brought].find(([, name]) => name === w.floorFrom)?.[0];
        assert.ok(reason, `${w.floorFrom} is not among what ${w.dir} brings`);
        assert.equal(
          satisfies([floor[0], floor[1] - 1, 99], nodeRange(lock.packages[reason]) ?? ""),
          false,
          `${w.floorFrom} would accept a lower floor`,
        );
      }
    });
  }

  it("the runtime brings none of the CLI's or the plugin's dependencies", () => {
    const brought = new Set(closure("runtime", false).values());
    assert.ok(brought.has("@grpc/grpc-js"), "the walk is broken: the runtime brings grpc-js");
    for (const heavy of [
      "typescript",
      "ts-morph",
      "esbuild",
      "@clack/prompts",
      "json-schema-to-typescript",
      "@bufbuild/protoplugin",
      "prettier",
    ]) {
      assert.ok(!brought.has(heavy), `the runtime brings ${heavy}`);
    }
  });

  it("Node 22, CI's floor leg, satisfies every package, the dev tools included", () => {
    assert.deepEqual(
      engines.filter((e) => !satisfies([22, 0, 0], e.range)),
      [],
    );
  });

  it("every floor (the root's and each workspace's; the scaffold claims the CLI's) is the oldest LTS line Node still supports", () => {
    const oldest = supportedNodeLines()[0];
    assert.ok(oldest, "cli/release/node-lines.ts knows no supported LTS line today: add the new lines to its table");
    for (const dir of ["", "runtime", "plugin", "cli"]) {
      const range = nodeRange(lock.packages[dir]);
      assert.equal(
        floorOf(range)[0],
        oldest.major,
        `${dir || "the root"}'s engines.node ${range} is not >=${oldest.major} (the oldest supported LTS line, until ${oldest.endOfLife}): move every engines floor and .ci/run's floor leg to it`,
      );
    }
  });

  it(".ci/run's legs: the whole suite on a supported LTS line at or above the floor, the floor leg on the engines floor", () => {
    const script = readFileSync(path.join(repoRoot, ".ci/run"), "utf8");
    const current = Number(/^current_lts=(\d+)$/m.exec(script)?.[1]);
    const floorLeg = Number(/^floor_lts=(\d+)$/m.exec(script)?.[1]);
    const floor = floorOf(nodeRange(lock.packages[""]))[0];
    assert.equal(floorLeg, floor, `.ci/run's floor_lts=${floorLeg} is not the engines floor ${floor}`);
    const supported = supportedNodeLines().map((l) => l.major);
    assert.ok(
      supported.includes(current) && current >= floor,
      `.ci/run's current_lts=${current} is not a supported LTS line (${supported.join(", ")}) at or above ${floor}`,
    );
    // The current line is on PATH before `npm ci`: everything after it runs on that node.
    const onPath = script.indexOf('export PATH="$current_bin:$PATH"');
    assert.ok(onPath > 0 && onPath < script.indexOf("\nnpm ci "), "the current LTS is put first on PATH before npm ci");
  });

  it("every esbuild target in the sources is the engines floor", () => {
    const floor = floorOf(nodeRange(lock.packages["cli"]))[0];
    const files = [
      "cli/commands/bundle-command.ts",
      "cli/release/script-bundle.ts",
      "cli/release/early-supervision.ts",
      "plugin/bundle-plugin.mjs",
    ];
    const benchFiles = [
      "bench/provider-builds.ts",
      "bench/telemetry.ts",
      "bench/profile-provider.ts",
      "test/runtime/telemetry/bundled-export.test.ts",
    ];
    const targets = [...files, ...benchFiles].flatMap((file) =>
      [...readFileSync(path.join(repoRoot, file), "utf8").matchAll(/["'=]node(\d+)["']?/g)].map((m) => ({
        file,
        major: Number(m[1]),
      })),
    );
    for (const file of files)
      assert.ok(
        targets.some((t) => t.file === file),
        `${file} names no node target: the check is broken`,
      );
    assert.deepEqual(
      targets.filter((t) => t.major !== floor),
      [],
      `esbuild targets other than node${floor}`,
    );
  });

  it("the scaffold claims the CLI's floor, the highest of the three", () => {
    const files = scaffoldFiles({
      name: "notes",
      source: "github.com/acme/x",
      examples: ["data_source"],
      packages: { runtime: "^0.1.0", plugin: "^0.1.0", cli: "^0.1.0" },
      directory: "/tmp/notes",
    });
    const scaffold = JSON.parse(files.get("package.json") ?? "{}") as { engines?: { node?: string } };
    assert.equal(scaffold.engines?.node, nodeRange(lock.packages["cli"]));
  });
});
