// The Node versions harness-tool claims are true: package.json's `engines` floor satisfies the
// engines of every package a provider author installs with it (the non-dev part of the lockfile),
// the scaffold claims the same floor, and Node 22, which CI also runs the tests on, satisfies every
// package, the dev tools included (protoc-gen-es 2.17 asks for Node >= 22).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { scaffoldFiles } from "../templates/provider-repo.js";
import { repoRoot } from "./support/buf.js";

type Version = [number, number, number];

function parseVersion(text: string): Version {
  const [major = 0, minor = 0, patch = 0] = text.replace(/^v/, "").replace(/\.\*$/, "").split(".").map((p) => Number.parseInt(p, 10) || 0);
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

const pkg = JSON.parse(readFileSync(path.join(repoRoot, "package.json"), "utf8")) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(path.join(repoRoot, "package-lock.json"), "utf8")) as {
  packages: Record<string, { dev?: boolean; engines?: { node?: string } | string[] }>;
};
const engines = Object.entries(lock.packages).flatMap(([name, p]) => (p.engines && !Array.isArray(p.engines) && p.engines.node ? [{ name: name || "harness-tool", dev: p.dev === true, range: p.engines.node }] : []));

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

  it("package.json's floor satisfies every package a provider author installs", () => {
    const floor = parseVersion(/^>=\s*(\S+)$/.exec(pkg.engines.node)?.[1] ?? "");
    const refused = engines.filter((e) => !e.dev && !satisfies(floor, e.range));
    assert.deepEqual(refused, [], `engines.node ${pkg.engines.node} is below what these need`);
    // And no higher than needed: an installed package refuses the minor line below it.
    assert.ok(engines.some((e) => !e.dev && e.name !== "harness-tool" && !satisfies([floor[0], floor[1] - 1, 99], e.range)));
  });

  it("Node 22 satisfies every package, the dev tools included", () => {
    assert.deepEqual(engines.filter((e) => !satisfies([22, 0, 0], e.range)), []);
    assert.ok(engines.some((e) => e.dev && !satisfies([20, 20, 0], e.range)), "a dev tool needs Node 22 (else the Node 22 CI run would not be needed)");
  });

  it("the scaffold claims the same floor", () => {
    const files = scaffoldFiles({ name: "notes", source: "x", examples: ["data_source"], harnessToolSpec: "^0.1.0", directory: "/tmp/notes" });
    const scaffold = JSON.parse(files.get("package.json") ?? "{}") as { engines?: { node?: string } };
    assert.equal(scaffold.engines?.node, pkg.engines.node);
  });
});
