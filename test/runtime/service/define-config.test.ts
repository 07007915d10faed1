// The interpreting decoder of hand-written configurations.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { defineConfig } from "../../../runtime/index.js";
import { decodeConfig } from "../../../runtime/provider/define-config.js";

const attributes = defineConfig([
  { name: "s", type: "string" },
  { name: "n", type: "number" },
  { name: "b", type: "bool" },
  { name: "ls", type: "list_string" },
  { name: "ln", type: "list_number" },
  { name: "m", type: "map_string" },
  {
    name: "o",
    type: "object",
    objectAttributes: [
      { name: "inner", type: "string", required: true },
      { name: "d", type: "bool", defaultJson: "true" },
    ],
  },
]).attributes;

describe("decodeConfig", () => {
  it("accepts every type and applies nested defaults", () => {
    const value = { s: "a", n: 1.5, b: false, ls: ["x"], ln: [1, 2], m: { k: "v" }, o: { inner: "i" } };
    assert.deepEqual(decodeConfig(attributes, value), { ok: true, value: { ...value, o: { inner: "i", d: true } } });
  });

  it("names every wrong type by path", () => {
    const result = decodeConfig(attributes, {
      s: 1,
      n: "1",
      b: "yes",
      ls: [1],
      ln: ["a"],
      m: { k: 2 },
      o: { inner: 3 },
    });
    assert.equal(result.ok, false);
    assert.deepEqual(!result.ok && result.violations.map((v) => v.path), [
      "/s",
      "/n",
      "/b",
      "/ls/0",
      "/ln/0",
      "/m/k",
      "/o/inner",
    ]);
  });

  it("reports a missing required nested attribute and unknown attributes, and treats null as unset", () => {
    const result = decodeConfig(attributes, { o: { inner: null }, extra: 1 });
    assert.deepEqual(!result.ok && result.violations, [
      { path: "/o/inner", message: "is required" },
      { path: "/extra", message: "is not a known attribute" },
    ]);
  });

  it("refuses a default that does not match its type when the config is defined", () => {
    assert.throws(
      () => defineConfig([{ name: "n", type: "number", defaultJson: '"x"' }]),
      /the default must be a number/,
    );
    assert.throws(() => defineConfig([{ name: "n", type: "number", defaultJson: "{" }]), /not valid JSON/);
    assert.throws(
      () =>
        defineConfig([
          { name: "a", type: "string" },
          { name: "a", type: "string" },
        ]),
      /declared more than once/,
    );
  });
});
