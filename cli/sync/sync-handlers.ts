/**
 * `harness-tool sync`: keeps a hand-written handlers object in step with the generated handler
 * interface. Each handler the interface declares and the object lacks is added with its exact
 * typed signature (the parameter and return types as the interface writes them, with the type
 * imports they need) and a body that throws a clear "not implemented" ToolError; handlers whose
 * tool no longer exists are reported, never deleted. Edits are plain text insertions (names added to
 * an existing import of their module, or a new import line; the stubs before the object's closing
 * brace; a comma after the last member when it has none), so comments and formatting elsewhere stay
 * byte for byte. Running it twice changes nothing.
 */
import { readFileSync, writeFileSync } from "node:fs";
import {
  Node,
  Project,
  SyntaxKind,
  ts,
  type ImportDeclaration,
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
  readonly objects: readonly {
    readonly interfaceName: string;
    readonly added: readonly string[];
    readonly stale: readonly string[];
  }[];
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
    const declaration = interfaceType
      .getSymbol()
      ?.getDeclarations()
      .find((d): d is InterfaceDeclaration => Node.isInterfaceDeclaration(d));
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
    if (Node.isPropertyAssignment(p) || Node.isMethodDeclaration(p) || Node.isShorthandPropertyAssignment(p))
      return [p.getName()];
    return [];
  });
}

/** Records where each type name used by `node` comes from, as the handlers file must import it. */
function collectTypeNames(
  node: TypeNode,
  iface: InterfaceDeclaration,
  interfaceSpecifier: string | undefined,
  needed: NeededImports,
): void {
  const ifaceFile = iface.getSourceFile();
  const refs = [node, ...node.getDescendants()].filter((n): n is TypeReferenceNode => Node.isTypeReference(n));
  for (const ref of refs) {
    const typeName = ref.getTypeName();
    const ident = Node.isIdentifier(typeName)
      ? typeName.getText()
      : typeName.getFirstDescendantByKind(SyntaxKind.Identifier)?.getText();
    if (!ident) continue;
    let specifier: string | undefined;
    const fromImport = ifaceFile
      .getImportDeclarations()
      .find((d) => d.getNamedImports().some((n) => localName(n) === ident));
    if (fromImport) {
      const spec = fromImport.getModuleSpecifierValue();
      // A relative import inside the generated file would need rewriting for the handlers' folder;
      // such a type is left for the author (the compiler names it).
      if (!spec.startsWith(".")) specifier = spec;
    } else if (
      ifaceFile.getInterface(ident) ||
      ifaceFile.getTypeAlias(ident) ||
      ifaceFile.getEnum(ident) ||
      ifaceFile.getClass(ident)
    ) {
      specifier = interfaceSpecifier;
    }
    if (!specifier) continue; // a global such as Promise
    const names = needed.get(specifier) ?? new Set<string>();
    names.add(ident);
    needed.set(specifier, names);
  }
}

/** The method text for one missing handler. */
function stubFor(
  name: string,
  iface: InterfaceDeclaration,
  interfaceSpecifier: string | undefined,
  needed: NeededImports,
  indent: string,
): string {
  const member = iface
    .getMembers()
    .find((m) => (Node.isMethodSignature(m) || Node.isPropertySignature(m)) && m.getName() === name);
  if (name === "hooks" && member && Node.isPropertySignature(member)) {
    // A proto's supported_hook_points: per point, the modes it accepts and their handlers.
    const points = member.getTypeNode()?.getText() ?? "";
    return `${indent}// harness-tool sync: add hooks, the subscriptions of supported_hook_points (${points}): per point, observe, veto or transform (docs/hooks.md)\n`;
  }
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
    if (
      Node.isInterfaceDeclaration(s) ||
      Node.isTypeAliasDeclaration(s) ||
      Node.isClassDeclaration(s) ||
      Node.isEnumDeclaration(s) ||
      Node.isFunctionDeclaration(s)
    ) {
      const n = s.getName();
      if (n) names.add(n);
    }
  }
  return names;
}

/** What one module must newly provide: value names and type-only names. */
interface WantedImport {
  readonly values: Set<string>;
  readonly types: Set<string>;
}

/**
 * Edits (at positions in the original text) that import what the stubs need. Names from a module
 * the file already imports join that import declaration (`import { a, type B }`, or the list of an
 * `import type`); only a module not imported yet gets a new line, after the last import.
 */
function importEdits(
  file: SourceFile,
  original: string,
  wanted: ReadonlyMap<string, WantedImport>,
): { at: number; text: string }[] {
  const edits: { at: number; text: string }[] = [];
  const newLines: string[] = [];
  for (const [spec, { values, types }] of wanted) {
    if (values.size === 0 && types.size === 0) continue;
    const named = file
      .getImportDeclarations()
      .filter(
        (d) => d.getModuleSpecifierValue() === spec && Node.isNamedImports(d.getImportClause()?.getNamedBindings()),
      );
    const valueImport = named.find((d) => !d.isTypeOnly());
    const typeImport = named.find((d) => d.isTypeOnly());
    const appendTo = (declaration: ImportDeclaration, names: readonly string[]): void => {
      const bindings = declaration.getImportClause()?.getNamedBindings();
      if (!Node.isNamedImports(bindings) || names.length === 0) return;
      const elements = bindings.getElements();
      const last = elements[elements.length - 1];
      if (last) edits.push({ at: last.getEnd(), text: `, ${names.join(", ")}` });
      else edits.push({ at: bindings.getStart() + 1, text: ` ${names.join(", ")} ` });
    };
    const sortedValues = [...values].sort();
    const sortedTypes = [...types].sort();
    if (valueImport) {
      appendTo(valueImport, [...sortedValues, ...sortedTypes.map((t) => `type ${t}`)]);
    } else if (typeImport && sortedValues.length === 0) {
      appendTo(typeImport, sortedTypes);
    } else if (sortedValues.length > 0) {
      newLines.push(
        `import { ${[...sortedValues, ...sortedTypes.map((t) => `type ${t}`)].join(", ")} } from "${spec}";\n`,
      );
    } else {
      newLines.push(`import type { ${sortedTypes.join(", ")} } from "${spec}";\n`);
    }
  }
  if (newLines.length > 0) {
    const imports = file.getImportDeclarations();
    const last = imports[imports.length - 1];
    const lineEnd = last ? original.indexOf("\n", last.getEnd()) : -1;
    const at = !last ? 0 : lineEnd < 0 ? original.length : lineEnd + 1;
    edits.push({ at, text: newLines.join("") });
  }
  return edits;
}

/** Adds missing handlers to every handlers object in `filePath` and reports stale ones. */
export function syncHandlers(filePath: string, options: SyncOptions = {}): SyncReport {
  const project = options.tsConfigFilePath
    ? new Project({ tsConfigFilePath: options.tsConfigFilePath, skipAddingFilesFromTsConfig: true })
    : new Project({
        compilerOptions: {
          module: ts.ModuleKind.NodeNext,
          moduleResolution: ts.ModuleResolutionKind.NodeNext,
          strict: true,
          target: ts.ScriptTarget.ES2022,
        },
      });
  const original = readFileSync(filePath, "utf8");
  const file = project.addSourceFileAtPath(filePath);
  project.resolveSourceFileDependencies();

  const edits: { at: number; text: string }[] = [];
  const needed: NeededImports = new Map();
  const objects = handlersObjects(file).map(({ object, interfaceType, interfaceName, declaration, specifier }) => {
    const present = new Set(memberNames(object));
    const wanted = interfaceType.getProperties();
    const wantedNames = new Set(wanted.map((p) => p.getName()));
    const missing = declaration
      ? wanted.filter((p) => !present.has(p.getName()) && !(p.getFlags() & ts.SymbolFlags.Optional))
      : [];
    const stale = [...present].filter((n) => !wantedNames.has(n));
    if (declaration && missing.length > 0) {
      const closeBrace = object.getLastChildByKindOrThrow(SyntaxKind.CloseBraceToken);
      const lineStart = original.lastIndexOf("\n", closeBrace.getStart()) + 1;
      const closingIndent = original.slice(lineStart, closeBrace.getStart());
      const props = object.getProperties();
      const lastProp = props[props.length - 1];
      const indent = lastProp
        ? original.slice(original.lastIndexOf("\n", lastProp.getStart()) + 1, lastProp.getStart())
        : `${closingIndent}  `;
      if (lastProp && !/^\s*,/.test(original.slice(lastProp.getEnd())))
        edits.push({ at: lastProp.getEnd(), text: "," });
      const stubs = missing.map((p) => stubFor(p.getName(), declaration, specifier, needed, indent)).join("");
      // On lines of their own just before the closing brace's line, so no existing line changes.
      const braceOnOwnLine = /^\s*$/.test(closingIndent);
      edits.push(
        braceOnOwnLine
          ? { at: lineStart, text: stubs }
          : { at: closeBrace.getStart(), text: `\n${stubs}${closingIndent}` },
      );
    }
    return { interfaceName, added: missing.map((p) => p.getName()), stale };
  });

  if (edits.length > 0) {
    const bound = boundNames(file);
    const wanted = new Map<string, WantedImport>();
    const entry = (spec: string): WantedImport => {
      const found = wanted.get(spec) ?? { values: new Set<string>(), types: new Set<string>() };
      wanted.set(spec, found);
      return found;
    };
    if (!bound.has("ToolError")) entry(options.runtimeImportPath ?? "harness-tool").values.add("ToolError");
    // Packages first, then relative modules, as imports are usually ordered.
    const order = (spec: string): string => `${spec.startsWith(".") ? 1 : 0}${spec}`;
    for (const [spec, names] of [...needed].sort(([a], [b]) => order(a).localeCompare(order(b)))) {
      for (const name of names) if (!bound.has(name)) entry(spec).types.add(name);
    }
    edits.push(...importEdits(file, original, wanted));
  }
  let text = original;
  // Back to front, so each edit's position in the original text still holds.
  for (const edit of edits.sort((a, b) => b.at - a.at)) text = text.slice(0, edit.at) + edit.text + text.slice(edit.at);
  const changed = text !== original;
  if (changed && !options.dryRun) writeFileSync(filePath, text);
  return { file: filePath, objects, changed };
}
