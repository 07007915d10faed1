/**
 * The TypeScript types of a file: each tool's input and output, the messages they use (each once,
 * as a named type; messages alike to an earlier one as an alias of its interface), and each
 * provider's config, in print order per provider.
 */
import type { FileModel } from "../model/file-model.js";
import type { ProviderModel } from "../model/provider-model.js";
import { SharedTypeNames } from "../model/shape-identity.js";
import type { ToolMessageModel } from "../model/tool-model.js";
import { resolveShape, type NamedShape, type ValueShape } from "../model/value-shape.js";
import { docText, generatedFrom } from "./doc-text.js";

/** A shape a declaration names: anything but a reference to another declaration. */
export type DeclaredShape = Exclude<ValueShape, NamedShape>;

/** `@generated from message <full name>` of a message's type. */
function from(shape: NamedShape): string {
  return generatedFrom({ kind: "message", name: shape.messageName });
}

/** A declaration to print: a type of its own, or an alias of an alike message's type. */
export type TypeEntry =
  | DeclaredEntry
  | { readonly kind: "alias"; readonly name: string; readonly target: string; readonly doc: string };

/** A type of its own: its name, shape and JSDoc. */
export interface DeclaredEntry {
  readonly kind: "declared";
  readonly name: string;
  readonly shape: DeclaredShape;
  readonly doc: string | undefined;
}

/** The types of each provider of a file, in print order. */
export type FileTypes = ReadonlyMap<ProviderModel, readonly TypeEntry[]>;

function ioDoc(which: "input" | "output", toolName: string, comment: string | undefined): string {
  const head = `The ${which} of the \`${toolName}\` tool.`;
  return comment ? `${head}\n\n${comment}` : head;
}

/** Collects the types of every provider in `file`. */
export function collectTypes(file: FileModel): FileTypes {
  const done = new Set<string>();
  const providers = new Map<ProviderModel, TypeEntry[]>();

  const shared = new SharedTypeNames();
  const addNested = (shape: ValueShape, entries: TypeEntry[]): void => {
    const target = resolveShape(shape);
    if (shape.kind === "named") {
      if (done.has(shape.typeName)) return;
      done.add(shape.typeName);
      const declaring = shared.declaringShape(shape);
      if (declaring === shape) {
        entries.push({
          kind: "declared",
          name: shape.typeName,
          shape: shape.target,
          doc: docText(shape.target.description, from(shape)),
        });
      } else {
        entries.push({
          kind: "alias",
          name: shape.typeName,
          target: declaring.typeName,
          doc: docText(sharedShapeDoc(shape, declaring), from(shape)),
        });
      }
    }
    walkChildren(target, (child) => addNested(child, entries));
  };

  for (const provider of file.providers) {
    const entries: TypeEntry[] = [];
    const nested: TypeEntry[] = [];
    const addIo = (io: ToolMessageModel, which: "input" | "output", toolName: string): void => {
      const root: NamedShape = io.shape;
      if (root.typeName !== io.typeName || done.has(io.typeName)) {
        entries.push({
          kind: "alias",
          name: io.typeName,
          target: root.typeName,
          doc: docText(`${ioDoc(which, toolName, undefined)} It is the same message as ${root.typeName}.`, from(root)),
        });
        if (!done.has(root.typeName)) addNested(root, nested);
        return;
      }
      done.add(root.typeName);
      entries.push({
        kind: "declared",
        name: root.typeName,
        shape: root.target,
        doc: docText(ioDoc(which, toolName, root.target.description), from(root)),
      });
      walkChildren(root.target, (child) => addNested(child, nested));
    };
    for (const tool of provider.tools) {
      addIo(tool.input, "input", tool.declaration.name);
      addIo(tool.output, "output", tool.declaration.name);
    }
    entries.push(...nested);
    if (provider.config) {
      const description = provider.config.shape.description;
      const doc = docText(
        `The configuration of ${provider.serviceName} (its agent.hcl block).`,
        description,
        generatedFrom({ kind: "message", name: provider.config.messageName }),
      );
      entries.push({ kind: "declared", name: provider.names.config, shape: provider.config.shape, doc });
    }
    providers.set(provider, entries);
  }
  return providers;
}

/** The JSDoc of an alias of an alike message's interface. */
function sharedShapeDoc(shape: NamedShape, declaring: NamedShape): string {
  const note = `${shape.messageName} has the same fields as ${declaring.messageName}, so one interface declares both.`;
  const description = shape.target.description;
  return description ? `${description}\n\n${note}` : note;
}

function walkChildren(shape: ValueShape, visit: (child: ValueShape) => void): void {
  const target = resolveShape(shape);
  switch (target.kind) {
    case "object":
      for (const p of target.properties) {
        if (p.shape.kind === "named") visit(p.shape);
        else walkChildren(p.shape, visit);
      }
      return;
    case "array":
      if (target.items.kind === "named") visit(target.items);
      else walkChildren(target.items, visit);
      return;
    case "map":
      if (target.values.kind === "named") visit(target.values);
      else walkChildren(target.values, visit);
      return;
    default:
      return;
  }
}
