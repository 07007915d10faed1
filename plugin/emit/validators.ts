/**
 * The generated validators, built at module load by the runtime's one validator
 * (`validatorFor`, runtime/schema/validate-value.ts): over the schema constant the module already
 * exports, or, where the proto states more than the subset can (an integral number refuses a
 * fraction; config maps), over a `ValueCheck` literal describing the same value. Alike shapes
 * (shape-identity.ts) share one compiled validator. Printed through protoplugin's `f.print`.
 */
import type { GeneratedFile, Printable } from "@bufbuild/protoplugin";
import { printLiteral } from "./print-literal.js";
import { schemaChecksAll, valueCheckOf } from "../model/json-schema-from-shape.js";
import { checkKey } from "../model/shape-identity.js";
import type { ValueShape } from "../model/value-shape.js";

/** Prints the validator constants of one generated file, compiling each distinct shape once. */
export class ValidatorWriter {
  /** Validator names by the checkKey of the shape they check. */
  private readonly names = new Map<string, string>();
  private readonly taken: Set<string>;

  /**
   * `validatorFor`: the runtime's compiler as printed. `declared`: the names the file declares
   * besides the private validators, which none of them may take.
   */
  constructor(
    private readonly f: GeneratedFile,
    private readonly validatorFor: Printable,
    declared: Iterable<string> = [],
  ) {
    this.taken = new Set(declared);
  }

  /**
   * Prints `declaration = <validator of shape>;`, where `declaration` is an exported constant
   * (protoplugin's `f.export("const", name)`) named `name`, and `schemaConst` the constant holding
   * the shape's subset schema, printed earlier in the file.
   */
  printValidator(declaration: Printable, name: string, shape: ValueShape, schemaConst: string): void {
    const key = checkKey(shape);
    const existing = this.names.get(key);
    if (existing !== undefined) {
      this.f.print(declaration, " = ", existing, ";");
      return;
    }
    this.names.set(key, name);
    const description = schemaChecksAll(shape) ? [schemaConst] : printLiteral(this.f, valueCheckOf(shape), "", true);
    this.f.print(declaration, " = ", this.validatorFor, "(", ...description, ");");
  }

  /**
   * The name of a private validator of `shape` (config decoders), printing it as a module constant
   * named after `suggested` on first use.
   */
  privateValidator(shape: ValueShape, suggested: string): string {
    const key = checkKey(shape);
    const existing = this.names.get(key);
    if (existing !== undefined) return existing;
    const base = `check${suggested.replace(/[^A-Za-z0-9_$]/g, "")}`;
    let name = base;
    for (let n = 2; this.taken.has(name); n++) name = `${base}${n}`;
    this.taken.add(name);
    this.names.set(key, name);
    this.f.print(
      "const ",
      name,
      " = ",
      this.validatorFor,
      "(",
      ...printLiteral(this.f, valueCheckOf(shape), "", true),
      ");",
    );
    this.f.print();
    return name;
  }
}

/** The JSDoc text of an exported validator, in every target. */
export function validatorDoc(schemaConst: string): string {
  return `Every way \`value\` falls outside {@link ${schemaConst}}, each with its JSON Pointer path.`;
}
