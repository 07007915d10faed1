/**
 * The text of the generated code's JSDoc: paragraphs joined by a blank line, lines longer than
 * the generated code's width broken at spaces, and the `@generated from` tag that links a
 * declaration back to its proto element (as protoc-gen-es writes it).
 */

/** The longest doc line the generated code holds, without the ` * ` and indentation before it. */
export const docWidth = 100;

/** What a declaration was generated from: the proto element's kind and full name. */
export interface ProtoSource {
  readonly kind: "service" | "rpc" | "message" | "field";
  readonly name: string;
}

/** `@generated from <kind> <full name>`. */
export function generatedFrom(source: ProtoSource): string {
  return `@generated from ${source.kind} ${source.name}`;
}

/** The non-empty paragraphs joined by a blank line, each line kept within `docWidth`. */
export function docText(...paragraphs: readonly (string | undefined)[]): string {
  return paragraphs
    .filter((p): p is string => p !== undefined && p !== "")
    .join("\n\n")
    .split("\n")
    .flatMap(wrapLine)
    .join("\n");
}

/** One line broken at spaces into lines of at most `docWidth` characters (a longer word stays whole). */
function wrapLine(line: string): string[] {
  if (line.length <= docWidth) return [line];
  const out: string[] = [];
  let current = "";
  for (const word of line.split(" ")) {
    if (current !== "" && current.length + 1 + word.length > docWidth) {
      out.push(current);
      current = word;
    } else current = current === "" ? word : `${current} ${word}`;
  }
  if (current !== "") out.push(current);
  return out;
}
