/**
 * The TypeScript declarations of the types a file declares (inputs, outputs, the messages they
 * use, configs), derived by json-schema-to-typescript's public `compile()` from each type's JSON
 * Schema: nested messages are `tsType` references to their own declarations, and every member's
 * description ends with its `@generated from field` tag.
 *
 * protoplugin's generators are synchronous and `compile()` is not, so the API module prints each
 * declaration's head through `f.export` (protoplugin then knows the name is taken and aliases an
 * import of the same name) followed by a placeholder; once protoplugin has answered,
 * `Declarations.compile` awaits `compile()` over every placeholder's type, and the run writes each
 * declaration, its JSDoc and body laid out with two-space indentation, in the placeholder's stead
 * (docs/plugin.md, TypeScript types).
 */
import type { GeneratedFile } from "@bufbuild/protoplugin";
import { compile, type Options } from "json-schema-to-typescript";
import { toTypeScriptSchema } from "../model/json-schema-from-shape.js";
import type { DeclaredEntry } from "./collect-types.js";
import { docText, generatedFrom } from "./doc-text.js";

/** compile()'s options: closed objects, no formatter, no banner, references left to their own declarations. */
export const compileOptions: Partial<Options> = {
  format: false,
  additionalProperties: false,
  bannerComment: "",
  declareExternallyReferenced: false,
  unknownAny: true,
};

/** The schema compile() declares `entry` from, with `@generated from` on each member that has a proto field. */
export function declarationSchema(entry: DeclaredEntry): Parameters<typeof compile>[0] {
  return toTypeScriptSchema(entry.shape, entry.doc, {
    memberDoc: (property, own) =>
      docText(own, property.protoName && generatedFrom({ kind: "field", name: property.protoName })),
  });
}

const mark = "\u0000harness-tool-declaration:";
const placeholder = new RegExp(`^export (interface|type) (\\S+) ${mark}(\\d+)\u0000$`, "gm");

/** The declarations a run prints, each once, by placeholder number. */
export class Declarations {
  private readonly entries: DeclaredEntry[] = [];
  private readonly numbers = new Map<DeclaredEntry, number>();

  /** Prints the head of `entry`'s declaration and its placeholder into `f`. */
  print(f: GeneratedFile, entry: DeclaredEntry): void {
    let number = this.numbers.get(entry);
    if (number === undefined) {
      number = this.entries.push(entry) - 1;
      this.numbers.set(entry, number);
    }
    f.print(
      f.export(entry.shape.kind === "object" || entry.shape.kind === "map" ? "interface" : "type", entry.name),
      ` ${mark}${number}\u0000`,
    );
  }

  /**
   * Awaits compile() over the type of every placeholder printed; resolves to what turns a printed
   * module's text into the text with each placeholder replaced by its declaration.
   */
  async compile(): Promise<(content: string) => string> {
    const texts = await Promise.all(
      this.entries.map((entry) => compile(declarationSchema(entry), entry.name, compileOptions)),
    );
    return (content) =>
      content.replace(placeholder, (_, kind: string, name: string, number: string) =>
        declaration(kind, name, texts[Number(number)] ?? ""),
      );
  }
}

/** compile()'s `text` under the head `export <kind> <name>` as printed (compile() makes the name a safe identifier of its own). */
function declaration(kind: string, name: string, text: string): string {
  const head = new RegExp(`^export ${kind} \\S+ `, "m").exec(text);
  if (!head) throw new Error(`json-schema-to-typescript declared no ${kind} for ${name}`);
  return layout(`${text.slice(0, head.index)}export ${kind} ${name} ${text.slice(head.index + head[0].length)}`);
}

/**
 * compile()'s unformatted output laid out: blank lines dropped, two spaces per nesting level, `{}`
 * for an empty body, and `;` after each member (and after a type alias).
 */
export function layout(text: string): string {
  let depth = 0;
  const lines: string[] = [];
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line === "") continue;
    if (line.startsWith("/**") || line.startsWith("*")) {
      lines.push(`${"  ".repeat(depth)}${line.startsWith("*") ? ` ${line}` : line}`);
      continue;
    }
    const closes = line.startsWith("}");
    if (closes) depth = Math.max(0, depth - 1);
    const end = line.endsWith("{") || (closes && depth === 0 && !line.endsWith("]")) ? "" : ";";
    const previous = lines.length - 1;
    if (closes && lines[previous]?.endsWith("{")) lines[previous] += `${line}${end}`;
    else lines.push(`${"  ".repeat(depth)}${line}${end}`);
    if (line.endsWith("{")) depth++;
  }
  return lines.join("\n");
}
