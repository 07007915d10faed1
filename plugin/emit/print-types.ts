/**
 * Prints the TypeScript types json-schema-to-typescript compiled (compile-types.ts) through
 * protoplugin's GeneratedFile: the declaration through `f.export` (so protoplugin knows the name
 * is taken and aliases an import of the same name), comments through `f.jsDoc`, members one per
 * line, two-space indentation. It prints what json-schema-to-typescript's own generator prints for
 * the AST nodes the plugin's schemas produce, formatted as a person would write it.
 */
import type { GeneratedFile, Printable } from "@bufbuild/protoplugin";
import type { AST, TInterface, TInterfaceParam } from "json-schema-to-typescript/dist/src/types/AST.js";
import { literalKey } from "./literal.js";

/** Prints `export interface name {...}` (or `export type name = ...;`) with its JSDoc. */
export function printTypeDeclaration(f: GeneratedFile, name: string, ast: AST): void {
  if (ast.comment) f.print(f.jsDoc(ast.comment));
  if (ast.type === "INTERFACE" && ast.superTypes.length === 0) {
    f.print(f.export("interface", name), " ", ...objectType(f, ast, ""));
  } else {
    f.print(f.export("type", name), " = ", ...typeOf(f, ast, ""), ";");
  }
}

/** The type of `ast` as printables; continuation lines start with `indent`. */
function typeOf(f: GeneratedFile, ast: AST, indent: string, root = true): Printable[] {
  // A named node (not the declaration itself) is a reference to its own declaration.
  if (!root && ast.standaloneName !== undefined) return [ast.standaloneName];
  switch (ast.type) {
    case "ANY":
      return ["any"];
    case "UNKNOWN":
      return ["unknown"];
    case "BOOLEAN":
      return ["boolean"];
    case "NUMBER":
      return ["number"];
    case "STRING":
      return ["string"];
    case "NULL":
      return ["null"];
    case "NEVER":
      return ["never"];
    case "OBJECT":
      return ["object"];
    case "LITERAL":
      return [JSON.stringify(ast.params)];
    case "CUSTOM_TYPE":
    case "REFERENCE":
      return [ast.params];
    case "ARRAY": {
      const items = typeOf(f, ast.params, indent, false);
      return needsParentheses(ast.params) ? ["(", ...items, ")[]"] : [...items, "[]"];
    }
    case "UNION":
    case "INTERSECTION": {
      if (ast.params.length === 0) return [ast.type === "UNION" ? "never" : "unknown"];
      const separator = ast.type === "UNION" ? " | " : " & ";
      return ast.params.flatMap((member, i) => {
        const printed = typeOf(f, member, indent, false);
        const wrapped = needsParentheses(member) ? ["(", ...printed, ")"] : printed;
        return i === 0 ? wrapped : [separator, ...wrapped];
      });
    }
    case "INTERFACE":
      return objectType(f, ast, indent);
    default:
      // Tuples and named enums come from keywords the plugin's schemas never use.
      throw new Error(`json-schema-to-typescript produced a ${ast.type} type, which the plugin does not print`);
  }
}

/** True when `ast` printed inside an array or a union needs parentheses. */
function needsParentheses(ast: AST): boolean {
  return ast.standaloneName === undefined && (ast.type === "UNION" || ast.type === "INTERSECTION") && ast.params.length > 1;
}

/** `{`, one member per line with its JSDoc, `}`; `{}` when there are none. */
function objectType(f: GeneratedFile, ast: TInterface, indent: string): Printable[] {
  const members = ast.params.filter((p) => !p.isUnreachableDefinition);
  if (members.length === 0) return ["{}"];
  const inner = `${indent}  `;
  const out: Printable[] = ["{\n"];
  for (const member of members) {
    if (member.ast.comment) out.push(f.jsDoc(member.ast.comment, inner), "\n");
    out.push(inner, memberKey(member), ": ", ...typeOf(f, member.ast, inner, false), ";\n");
  }
  out.push(indent, "}");
  return out;
}

function memberKey(member: TInterfaceParam): string {
  // json-schema-to-typescript names the index signature of additionalProperties `[k: string]`.
  if (member.isIndexSignature) return "[key: string]";
  return `${literalKey(member.keyName)}${member.isRequired ? "" : "?"}`;
}
