/**
 * `harness-tool sync`: keeps a hand-written handlers object in step with the generated handler
 * interface. Each handler the interface declares and the object lacks is added with its exact
 * typed signature (the parameter and return types as the interface writes them, with the type
 * imports they need) and a body that throws a clear "not implemented" ToolError; handlers whose
 * tool no longer exists are reported, never deleted. Edits are plain text insertions (new import
 * lines, the stubs before the object's closing brace, a comma after the last member when it has
 * none), so comments and formatting elsewhere stay byte for byte. Running it twice changes nothing.
 */
import { readFileSync, writeFileSync } from "node:fs";
import {
  Node,
  Project,
  SyntaxKind,
  ts,
  type InterfaceDeclaration,
  type ObjectLiteralExpression,
  type SourceFile,
  type Type,
  type TypeNode,
  type TypeReferenceNode,
} from "ts-morph";

/** What sync did, or would do with `dryRun`. */
export interface SyncReport {
  readonly file: string;
  /** The handlers objects found, by the interface they implement. */
  readonly objects: readonly { readonly interfaceName: string; readonly added: readonly string[]; readonly stale: readonly string[] }[];
  /** True when the file changed (or would change). */
  readonly changed: boolean;
}

/** Options of syncHandlers. */
export interface SyncOptions {
  /** The tsconfig.json that resolves the generated code; default: NodeNext defaults. */
  readonly tsConfigFilePath?: string;
  /** Compute the report without writing the file. */
  readonly dryRun?: boolean;
  /** The module the ToolError import comes from; default "harness-tool". */
  readonly runtimeImportPath?: string;
}

interface HandlersObject {
  readonly object: ObjectLiteralExpression;
  readonly interfaceType: Type;
  readonly interfaceName: string;
  readonly declaration: InterfaceDeclaration | undefined;
  /** How the handlers file imports the interface's module. */
  readonly specifier: string | undefined;
}

/** Type names the stubs need, by the module specifier they are imported from. */
type NeededImports = Map<string, Set<string>>;

function localName(n: { getAliasNode(): Node | undefined; getName(): string }): string {
  return n.getAliasNode()?.getText() ?? n.getName();
}

/** Objects implementing a `...Handlers` interface: `const h: FooHandlers = {...}` or `{...} satisfies FooHandlers`. */
function handlersObjects(file: SourceFile): HandlersObject[] {
  const found: HandlersObject[] = [];
  for (const object of file.getDescendantsOfKind(SyntaxKind.ObjectLiteralExpression)) {
    const parent = object.getParent();
    let typeNode: TypeNode | undefined;
    if (Node.isVariableDeclaration(parent) && parent.getInitializer() === object) typeNode = parent.getTypeNode();
    else if (Node.isSatisfiesExpression(parent)) typeNode = parent.getTypeNode();
    if (!typeNode) continue;
    const name = typeNode.getText();
    if (!/Handlers$/.test(name)) continue;
    const interfaceType = typeNode.getType();
    const declaration = interfaceType.getSymbol()?.getDeclarations().find((d): d is InterfaceDeclaration => Node.isInterfaceDeclaration(d));
    const specifier = file
      .getImportDeclarations()
      .find((d) => d.getNamedImports().some((n) => localName(n) === name))
      ?.getModuleSpecifierValue();
    found.push({ object, interfaceType, interfaceName: name, declaration, specifier });
  }
  return found;
}

function memberNames(object: ObjectLiteralExpression): string[] {
  return object.getProperties().flatMap((p) => {
    if (Node.isPropertyAssignment(p) || Node.isMethodDeclaration(p) || Node.isShorthandPropertyAssignment(p)) return [p.getName()];
    return [];
  });
}

/** Records where each type name used by `node` comes from, as the handlers file must import it. */
function collectTypeNames(node: TypeNode, iface: InterfaceDeclaration, interfaceSpecifier: string | undefined, needed: NeededImports): void {
  const ifaceFile = iface.getSourceFile();
  const refs = [node, ...node.getDescendants()].filter((n): n is TypeReferenceNode => Node.isTypeReference(n));
  for (const ref of refs) {
    const typeName = ref.getTypeName();
    const ident = Node.isIdentifier(typeName) ? typeName.getText() : typeName.getFirstDescendantByKind(SyntaxKind.Identifier)?.getText();
    if (!ident) continue;
    let specifier: string | undefined;
    const fromImport = ifaceFile.getImportDeclarations().find((d) => d.getNamedImports().some((n) => localName(n) === ident));
    if (fromImport) {
      const spec = fromImport.getModuleSpecifierValue();
      // A relative import inside the generated file would need rewriting for the handlers' folder;
      // such a type is left for the author (the compiler names it).
      if (!spec.startsWith(".")) specifier = spec;
    } else if (ifaceFile.getInterface(ident) || ifaceFile.getTypeAlias(ident) || ifaceFile.getEnum(ident) || ifaceFile.getClass(ident)) {
      specifier = interfaceSpecifier;
    }
    if (!specifier) continue; // a global such as Promise
    const names = needed.get(specifier) ?? new Set<string>();
    names.add(ident);
    needed.set(specifier, names);
  }
}

/** The method text for one missing handler. */
function stubFor(name: string, iface: InterfaceDeclaration, interfaceSpecifier: string | undefined, needed: NeededImports, indent: string): string {
  const member = iface.getMembers().find((m) => (Node.isMethodSignature(m) || Node.isPropertySignature(m)) && m.getName() === name);
  if (!member || !Node.isMethodSignature(member)) {
    return `${indent}// harness-tool sync: ${name} is not a method of ${iface.getName()}; add it by hand\n`;
  }
  const params = member.getParameters().map((p, i) => {
    const t = p.getTypeNode();
    if (t) collectTypeNames(t, iface, interfaceSpecifier, needed);
    // Unused in the stub: the prefix keeps noUnusedParameters quiet.
    const paramName = i === 0 ? "_input" : i === 1 ? "_ctx" : `_${p.getName()}`;
    return t ? `${paramName}: ${t.getText()}` : paramName;
  });
  const r = member.getReturnTypeNode();
  if (r) collectTypeNames(r, iface, interfaceSpecifier, needed);
  return (
    `${indent}async ${name}(${params.join(", ")})${r ? `: ${r.getText()}` : ""} {\n` +
    `${indent}  throw new ToolError("execution_failed", "${name} is not implemented yet (added by harness-tool sync)");\n` +
    `${indent}},\n`
  );
}

/** Names already bound at the top level of the file. */
function boundNames(file: SourceFile): Set<string> {
  const names = new Set<string>();
  for (const d of file.getImportDeclarations()) {
    for (const n of d.getNamedImports()) names.add(localName(n));
    const def = d.getDefaultImport();
    if (def) names.add(def.getText());
  }
  for (const s of file.getStatements()) {
    if (Node.isInterfaceDeclaration(s) || Node.isTypeAliasDeclaration(s) || Node.isClassDeclaration(s) || Node.isEnumDeclaration(s) || Node.isFunctionDeclaration(s)) {
      const n = s.getName();
      if (n) names.add(n);
    }
  }
  return names;
}

/** Inserts `lines` after the file's last import (or at the top). */
function insertImports(text: string, file: SourceFile, lines: readonly string[]): string {
  if (lines.length === 0) return text;
  const imports = file.getImportDeclarations();
  const last = imports[imports.length - 1];
  if (!last) return lines.join("") + text;
  const lineEnd = text.indexOf("\n", last.getEnd());
  const at = lineEnd < 0 ? text.length : lineEnd + 1;
  return text.slice(0, at) + lines.join("") + text.slice(at);
}

/** Adds missing handlers to every handlers object in `filePath` and reports stale ones. */
export function syncHandlers(filePath: string, options: SyncOptions = {}): SyncReport {
  const project = options.tsConfigFilePath
    ? new Project({ tsConfigFilePath: options.tsConfigFilePath, skipAddingFilesFromTsConfig: true })
    : new Project({ compilerOptions: { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, strict: true, target: ts.ScriptTarget.ES2022 } });
  const original = readFileSync(filePath, "utf8");
  const file = project.addSourceFileAtPath(filePath);
  project.resolveSourceFileDependencies();

  const edits: { at: number; text: string }[] = [];
  const needed: NeededImports = new Map();
  const objects = handlersObjects(file).map(({ object, interfaceType, interfaceName, declaration, specifier }) => {
    const present = new Set(memberNames(object));
    const wanted = interfaceType.getProperties();
    const wantedNames = new Set(wanted.map((p) => p.getName()));
    const missing = declaration ? wanted.filter((p) => !present.has(p.getName()) && !(p.getFlags() & ts.SymbolFlags.Optional)) : [];
    const stale = [...present].filter((n) => !wantedNames.has(n));
    if (declaration && missing.length > 0) {
      const closeBrace = object.getLastChildByKindOrThrow(SyntaxKind.CloseBraceToken);
      const lineStart = original.lastIndexOf("\n", closeBrace.getStart()) + 1;
      const closingIndent = original.slice(lineStart, closeBrace.getStart());
      const props = object.getProperties();
      const lastProp = props[props.length - 1];
      const indent = lastProp ? original.slice(original.lastIndexOf("\n", lastProp.getStart()) + 1, lastProp.getStart()) : `${closingIndent}  `;
      if (lastProp && !/^\s*,/.test(original.slice(lastProp.getEnd()))) edits.push({ at: lastProp.getEnd(), text: "," });
      const stubs = missing.map((p) => stubFor(p.getName(), declaration, specifier, needed, indent)).join("");
      // On lines of their own just before the closing brace's line, so no existing line changes.
      const braceOnOwnLine = /^\s*$/.test(closingIndent);
      edits.push(braceOnOwnLine ? { at: lineStart, text: stubs } : { at: closeBrace.getStart(), text: `\n${stubs}${closingIndent}` });
    }
    return { interfaceName, added: missing.map((p) => p.getName()), stale };
  });

  let text = original;
  for (const edit of edits.sort((a, b) => b.at - a.at)) text = text.slice(0, edit.at) + edit.text + text.slice(edit.at);
  if (edits.length > 0) {
    const bound = boundNames(file);
    const lines: string[] = [];
    if (!bound.has("ToolError")) lines.push(`import { ToolError } from "${options.runtimeImportPath ?? "harness-tool"}";\n`);
    // Packages first, then relative modules, as imports are usually ordered.
    const order = (spec: string): string => `${spec.startsWith(".") ? 1 : 0}${spec}`;
    for (const [spec, names] of [...needed].sort(([a], [b]) => order(a).localeCompare(order(b)))) {
      const unbound = [...names].filter((n) => !bound.has(n)).sort();
      if (unbound.length > 0) lines.push(`import type { ${unbound.join(", ")} } from "${spec}";\n`);
    }
    text = insertImports(text, file, lines);
  }
  const changed = text !== original;
  if (changed && !options.dryRun) writeFileSync(filePath, text);
  return { file: filePath, objects, changed };
}
