/**
 * Validators compiled at generation time: straight-line checks per object, with the same paths
 * and messages as the runtime's interpreting validator (runtime/schema/validate-value.ts, the
 * reference semantics), whose wording they share through `typeOfJson` and `escapePointer`; an
 * integral proto type adds a check the subset cannot state (a fraction is refused). Maps appear
 * only in config. Alike shapes (shape-identity.ts) share one check function. Printed through
 * protoplugin's `f.print`: TypeScript, or JavaScript without the type annotations.
 */
import type { GeneratedFile, Printable } from "@bufbuild/protoplugin";
import { pascalCase } from "../model/names.js";
import { checkKey } from "../model/shape-identity.js";
import { resolveShape, type NamedShape, type ObjectShape, type ValueShape } from "../model/value-shape.js";

/** One line of code, as `f.print` takes it. */
type Line = readonly Printable[];

/** The runtime symbols the validators use (protoplugin imports what is printed). */
export interface ValidatorSymbols {
  readonly typeOfJson: Printable;
  readonly escapePointer: Printable;
  readonly ValueViolation: Printable;
}

/** Writes the private check functions of one generated file, each shape once. */
export class ValidatorWriter {
  /** Check function names by the checkKey of the shape they check. */
  private readonly names = new Map<string, string>();
  private readonly pending: { name: string; shape: Exclude<ValueShape, NamedShape> }[] = [];
  private readonly taken: Set<string>;
  private printedAny = false;

  /**
   * `typed`: TypeScript (parameter and return types); otherwise JavaScript. `declared`: the names
   * the file declares besides the check functions, which no check function may take.
   */
  constructor(
    private readonly f: GeneratedFile,
    private readonly symbols: ValidatorSymbols,
    private readonly typed: boolean,
    declared: Iterable<string> = [],
  ) {
    this.taken = new Set(declared);
  }

  /** The check function of a named shape (or inline object), scheduled on first use. */
  checkFunctionOf(shape: NamedShape | ObjectShape, suggested: string): string {
    const target = shape.kind === "named" ? shape.target : shape;
    const key = checkKey(target);
    const existing = this.names.get(key);
    if (existing !== undefined) return existing;
    // Inline objects are named after their property path, which may hold any character.
    const base = `check${shape.kind === "named" ? shape.typeName : suggested.replace(/[^A-Za-z0-9_$]/g, "")}`;
    let name = base;
    for (let n = 2; this.taken.has(name); n++) name = `${base}${n}`;
    this.taken.add(name);
    this.names.set(key, name);
    this.pending.push({ name, shape: target });
    return name;
  }

  /**
   * Prints an exported `validateX(value)` that runs the check of `shape` from the root.
   * `declaration` prints as `export function validateX` (protoplugin's `f.export("function", name)`).
   */
  printValidator(declaration: Printable, shape: NamedShape): void {
    const check = this.checkFunctionOf(shape, shape.typeName);
    const violations = this.symbols.ValueViolation;
    this.print([
      this.typed ? [declaration, "(value: unknown): ", violations, "[] {"] : [declaration, "(value) {"],
      this.typed ? ["  const violations: ", violations, "[] = [];"] : ["  const violations = [];"],
      [`  ${check}(value, "", violations);`],
      ["  return violations;"],
      ["}"],
    ]);
  }

  /** True when check functions are scheduled and not yet printed. */
  get hasPending(): boolean {
    return this.pending.length > 0;
  }

  /** Prints every scheduled check function (including those they call), in first-use order. */
  printFunctions(): void {
    while (this.pending.length > 0) {
      const next = this.pending.shift() as { name: string; shape: Exclude<ValueShape, NamedShape> };
      if (this.printedAny) this.f.print();
      this.printedAny = true;
      this.print(this.functionLines(next.name, next.shape));
    }
  }

  private print(lines: readonly Line[]): void {
    for (const line of lines) this.f.print(...line);
  }

  private functionLines(name: string, shape: Exclude<ValueShape, NamedShape>): Line[] {
    const { typeOfJson, escapePointer, ValueViolation } = this.symbols;
    const head: Line = this.typed
      ? [`function ${name}(value: unknown, path: string, out: `, ValueViolation, "[]): void {"]
      : [`function ${name}(value, path, out) {`];
    if (shape.kind !== "object") {
      return [head, ...this.valueCheck(shape, "value", ["${path}"], "  ", name, 0), ["}"]];
    }
    const lines: Line[] = [
      head,
      ['  if (typeof value !== "object" || value === null || Array.isArray(value)) {'],
      ["    out.push({ path, message: `must be an object, not ${", typeOfJson, "(value)}` });"],
      ["    return;"],
      ["  }"],
      [this.typed ? "  const record = value as { readonly [name: string]: unknown };" : "  const record = value;"],
    ];
    for (const p of shape.properties) {
      if (p.required)
        lines.push([
          `  if (record[${JSON.stringify(p.name)}] === undefined) out.push({ path: `,
          ...pathCode(["${path}/", templateText(pointer(p.name))]),
          ', message: "is required" });',
        ]);
    }
    const unknown: Line = ["out.push({ path: `${path}/${", escapePointer, '(name)}`, message: "is not a known property" });'];
    if (shape.properties.length === 0) {
      lines.push(["  for (const name of Object.keys(record)) ", ...unknown]);
      lines.push(["}"]);
      return lines;
    }
    lines.push(["  for (const [name, field] of Object.entries(record)) {"], ["    switch (name) {"]);
    for (const p of shape.properties) {
      lines.push([`      case ${JSON.stringify(p.name)}:`]);
      const path: Line = ["${path}/", templateText(pointer(p.name))];
      const simple = this.scalarCondition(p.shape, "field");
      if (simple !== undefined) {
        lines.push([`        if (field !== undefined && ${simple.condition}) `, ...this.push(path, simple.message)]);
      } else {
        lines.push(
          ["        if (field === undefined) break;"],
          ...this.valueCheck(p.shape, "field", path, "        ", `${name.replace(/^check/, "")}${pascalCase(p.name)}`, 0),
        );
      }
      lines.push(["        break;"]);
    }
    lines.push(["      default:"], ["        ", ...unknown], ["    }"], ["  }"], ["}"]);
    return lines;
  }

  /** The failing condition and message of a scalar without enum, else undefined. */
  private scalarCondition(shape: ValueShape, v: string): { condition: string; message: Line } | undefined {
    const target = resolveShape(shape);
    const not = (type: string): Line => ["`must be ", type, ", not ${", this.symbols.typeOfJson, `(${v})}\``];
    switch (target.kind) {
      case "string":
        return target.enum ? undefined : { condition: `typeof ${v} !== "string"`, message: not("a string") };
      case "number":
        return target.integer ? undefined : { condition: `(typeof ${v} !== "number" || !Number.isFinite(${v}))`, message: not("a number") };
      case "boolean":
        return { condition: `typeof ${v} !== "boolean"`, message: not("a boolean") };
      default:
        return undefined;
    }
  }

  private push(path: Line, message: Line): Line {
    return ["out.push({ ", ...(isBarePath(path) ? ["path"] : ["path: ", ...pathCode(path)]), ", message: ", ...message, " });"];
  }

  /** Checks of a value known not to be undefined. */
  private valueCheck(shape: ValueShape, v: string, path: Line, pad: string, context: string, depth: number): Line[] {
    if (shape.kind === "named") return [[pad, `${this.checkFunctionOf(shape, shape.typeName)}(${v}, `, ...pathCode(path), ", out);"]];
    const simple = this.scalarCondition(shape, v);
    if (simple) return [[pad, `if (${simple.condition.replace(/^\((.*)\)$/, "$1")}) `, ...this.push(path, simple.message)]];
    const { typeOfJson, escapePointer } = this.symbols;
    switch (shape.kind) {
      case "string": {
        const values = shape.enum ?? [];
        const oneOf = `must be one of ${values.map((e) => JSON.stringify(e)).join(", ")}`;
        return [
          [pad, `if (typeof ${v} !== "string") `, ...this.push(path, ["`must be a string, not ${", typeOfJson, `(${v})}\``])],
          [pad, `else if (${values.map((e) => `${v} !== ${JSON.stringify(e)}`).join(" && ")}) `, ...this.push(path, [JSON.stringify(oneOf)])],
        ];
      }
      case "number":
        // An integral proto type (the plain number is a simple condition above).
        return [
          [pad, `if (typeof ${v} !== "number" || !Number.isFinite(${v})) `, ...this.push(path, ["`must be a number, not ${", typeOfJson, `(${v})}\``])],
          [pad, `else if (!Number.isInteger(${v})) `, ...this.push(path, [`\`must be an integer, not \${${v}}\``])],
        ];
      case "object":
        return [[pad, `${this.checkFunctionOf(shape, context)}(${v}, `, ...pathCode(path), ", out);"]];
      case "array": {
        const index = depth === 0 ? "i" : `i${depth + 1}`;
        const item = depth === 0 ? "item" : `item${depth + 1}`;
        return [
          [pad, `if (!Array.isArray(${v})) `, ...this.push(path, ["`must be an array, not ${", typeOfJson, `(${v})}\``])],
          [pad, `else for (const [${index}, ${item}] of ${v}.entries()) {`],
          ...this.valueCheck(shape.items, item, [...path, `/\${${index}}`], `${pad}  `, `${context}Item`, depth + 1),
          [pad, "}"],
        ];
      }
      case "map": {
        const key = depth === 0 ? "key" : `key${depth + 1}`;
        const entry = depth === 0 ? "entry" : `entry${depth + 1}`;
        return [
          [
            pad,
            `if (typeof ${v} !== "object" || ${v} === null || Array.isArray(${v})) `,
            ...this.push(path, ["`must be an object, not ${", typeOfJson, `(${v})}\``]),
          ],
          [pad, `else for (const [${key}, ${entry}] of Object.entries(${v})) {`],
          ...this.valueCheck(shape.values, entry, [...path, "/${", escapePointer, `(${key})}`], `${pad}  `, `${context}Value`, depth + 1),
          [pad, "}"],
        ];
      }
      default:
        return [];
    }
  }
}

/** The JSDoc text of an exported validator, in every target. */
export function validatorDoc(schemaConst: string): string {
  return `Every way \`value\` falls outside {@link ${schemaConst}}, each with its JSON Pointer path.`;
}

function pointer(name: string): string {
  return name.replace(/~/g, "~0").replace(/\//g, "~1");
}

/** Text safe inside a template literal. */
function templateText(text: string): string {
  return text.replace(/[\\`]/g, (c) => `\\${c}`).replace(/\$\{/g, "\\${");
}

function isBarePath(path: Line): boolean {
  return path.length === 1 && path[0] === "${path}";
}

/** A path (template-literal body pieces) as an expression. */
function pathCode(path: Line): Line {
  return isBarePath(path) ? ["path"] : ["`", ...path, "`"];
}
