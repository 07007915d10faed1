// When two messages are one interface and one check (plugin/shape-identity.ts).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { checkKey, SharedTypeNames } from "../../plugin/model/shape-identity.js";
import type { NamedShape, ObjectShape, ValueShape } from "../../plugin/model/value-shape.js";

function named(typeName: string, target: ObjectShape): NamedShape {
  return { kind: "named", typeName, messageName: `test.${typeName}`, target };
}

function object(description: string, properties: [string, ValueShape, boolean?][]): ObjectShape {
  return {
    kind: "object",
    description,
    properties: properties.map(([name, shape, required = true]) => ({ name, shape, required, sensitive: false })),
  };
}

const number: ValueShape = { kind: "number" };
const text: ValueShape = { kind: "string", description: "A text." };

describe("alike shapes", () => {
  it("share an interface when fields, types, requiredness and comments are the same", () => {
    const names = new SharedTypeNames();
    const first = named(
      "ReadWindow",
      object("A window.", [
        ["offset", number],
        ["length", number],
      ]),
    );
    const second = named(
      "ListWindow",
      object("A window.", [
        ["offset", number],
        ["length", number],
      ]),
    );
    assert.equal(names.declaringShape(first), first);
    assert.equal(names.declaringShape(second), first);
  });

  it("do not share an interface when a comment differs, but share the check", () => {
    const names = new SharedTypeNames();
    const a = named("A", object("One.", [["x", text]]));
    const b = named("B", object("Another.", [["x", text]]));
    assert.equal(names.declaringShape(b), b);
    assert.equal(names.declaringShape(a), a);
    assert.equal(checkKey(a), checkKey(b));
  });

  it("share neither when requiredness, a type or an enum value differs", () => {
    const base = object("W.", [["x", number]]);
    for (const other of [
      object("W.", [["x", number, false]]),
      object("W.", [["x", { kind: "boolean" }]]),
      object("W.", [["y", number]]),
    ]) {
      const names = new SharedTypeNames();
      assert.equal(names.declaringShape(named("B", other)).typeName, "B");
      assert.notEqual(checkKey(named("A", base)), checkKey(named("B", other)));
    }
    const red: ValueShape = { kind: "string", enum: ["red"] };
    const blue: ValueShape = { kind: "string", enum: ["blue"] };
    assert.notEqual(checkKey(red), checkKey(blue));
  });

  it("make parents alike when their children are alike under other names", () => {
    const names = new SharedTypeNames();
    const windowA = named("ReadRequestWindow", object("A window.", [["offset", number]]));
    const windowB = named("ListRequestWindow", object("A window.", [["offset", number]]));
    const parentA = named("ReadRequestPage", object("A page.", [["window", windowA]]));
    const parentB = named("ListRequestPage", object("A page.", [["window", windowB]]));
    assert.equal(names.declaringShape(parentA), parentA);
    assert.equal(names.declaringShape(parentB), parentA);
    assert.equal(names.declaringShape(windowB), windowA);
  });
});
