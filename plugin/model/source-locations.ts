/**
 * Source positions and comments of descriptors, from each file's SourceCodeInfo. protoplugin's
 * getComments scans every location on each call (quadratic over a file); this indexes each file's
 * locations once and computes descriptor paths in one walk.
 */
import type { DescEnum, DescField, DescFile, DescMessage, DescMethod, DescService, Message } from "@bufbuild/protobuf";
import type { GenMessage } from "@bufbuild/protobuf/codegenv2";
import {
  DescriptorProtoSchema,
  EnumDescriptorProtoSchema,
  FieldDescriptorProtoSchema,
  FileDescriptorProtoSchema,
  MethodDescriptorProtoSchema,
  ServiceDescriptorProtoSchema,
} from "@bufbuild/protobuf/wkt";
import type { SourcePosition } from "./diagnostics.js";

// google.protobuf.FileDescriptorProto / DescriptorProto / ... field numbers used in source paths,
// read from the descriptors of descriptor.proto.
const FILE_MESSAGE_TYPE = fieldNumber(FileDescriptorProtoSchema, "messageType");
const FILE_ENUM_TYPE = fieldNumber(FileDescriptorProtoSchema, "enumType");
const FILE_SERVICE = fieldNumber(FileDescriptorProtoSchema, "service");
const MESSAGE_FIELD = fieldNumber(DescriptorProtoSchema, "field");
const MESSAGE_NESTED_TYPE = fieldNumber(DescriptorProtoSchema, "nestedType");
const MESSAGE_ENUM_TYPE = fieldNumber(DescriptorProtoSchema, "enumType");
const ENUM_VALUE = fieldNumber(EnumDescriptorProtoSchema, "value");
const SERVICE_METHOD = fieldNumber(ServiceDescriptorProtoSchema, "method");

/** The source path numbers of the elements this plugin points at. */
export const sourcePathParts = {
  MESSAGE_OPTIONS: fieldNumber(DescriptorProtoSchema, "options"),
  FIELD_OPTIONS: fieldNumber(FieldDescriptorProtoSchema, "options"),
  SERVICE_OPTIONS: fieldNumber(ServiceDescriptorProtoSchema, "options"),
  METHOD_OPTIONS: fieldNumber(MethodDescriptorProtoSchema, "options"),
  /** MethodDescriptorProto.input_type / output_type. */
  METHOD_INPUT_TYPE: fieldNumber(MethodDescriptorProtoSchema, "inputType"),
  METHOD_OUTPUT_TYPE: fieldNumber(MethodDescriptorProtoSchema, "outputType"),
} as const;

/** The field names of a generated message type, as its descriptor's `field` record keys them. */
export type FieldName<T extends Message> = keyof GenMessage<T>["field"] & string;

/** The number of the field `name` of `schema`, from its generated descriptor. */
export function fieldNumber<T extends Message>(schema: GenMessage<T>, name: FieldName<T>): number {
  const found: DescField | undefined = schema.field[name];
  if (found === undefined) throw new Error(`${schema.typeName} has no field ${name}`);
  return found.number;
}

interface Located {
  readonly span: readonly number[];
  readonly leadingComments: string | undefined;
}

interface FileIndex {
  readonly locations: Map<string, Located>;
  /** For each path, the first location at or below it (an option written only through its fields). */
  readonly firstBelow: Map<string, Located>;
  readonly paths: Map<object, readonly number[]>;
}

/** Positions and comments of descriptors, indexed per file on first use. */
export class SourceIndex {
  private readonly files = new Map<DescFile, FileIndex>();

  private index(file: DescFile): FileIndex {
    let found = this.files.get(file);
    if (found) return found;
    const locations = new Map<string, Located>();
    const firstBelow = new Map<string, Located>();
    for (const location of file.proto.sourceCodeInfo?.location ?? []) {
      const key = location.path.join(",");
      const located = {
        span: location.span,
        leadingComments: location.leadingComments === "" ? undefined : location.leadingComments,
      };
      // The first location of a path is the declaration itself; later ones repeat it.
      if (!locations.has(key)) locations.set(key, located);
      for (let n = location.path.length; n > 0; n--) {
        const prefix = location.path.slice(0, n).join(",");
        const earlier = firstBelow.get(prefix);
        if (!earlier || before(located.span, earlier.span)) firstBelow.set(prefix, located);
      }
    }
    const paths = new Map<object, readonly number[]>();
    const walkEnums = (enums: readonly DescEnum[], prefix: readonly number[], part: number): void => {
      enums.forEach((e, i) => {
        paths.set(e, [...prefix, part, i]);
      });
    };
    const walkMessages = (messages: readonly DescMessage[], prefix: readonly number[], part: number): void => {
      messages.forEach((m, i) => {
        const path = [...prefix, part, i];
        paths.set(m, path);
        // DescMessage.fields keeps the declaration order of DescriptorProto.field.
        m.fields.forEach((f, j) => {
          paths.set(f, [...path, MESSAGE_FIELD, j]);
        });
        walkMessages(m.nestedMessages, path, MESSAGE_NESTED_TYPE);
        walkEnums(m.nestedEnums, path, MESSAGE_ENUM_TYPE);
      });
    };
    walkMessages(file.messages, [], FILE_MESSAGE_TYPE);
    walkEnums(file.enums, [], FILE_ENUM_TYPE);
    file.services.forEach((s, i) => {
      const path = [FILE_SERVICE, i];
      paths.set(s, path);
      s.methods.forEach((m, j) => {
        paths.set(m, [...path, SERVICE_METHOD, j]);
      });
    });
    found = { locations, firstBelow, paths };
    this.files.set(file, found);
    return found;
  }

  /** The source path of a service, rpc, message, enum or field. */
  pathOf(desc: DescService | DescMethod | DescMessage | DescEnum | DescField): readonly number[] {
    return this.index(fileOf(desc)).paths.get(desc) ?? [];
  }

  /**
   * The position of `path` (relative to `desc`'s own path) in `desc`'s file, or of the longest
   * prefix of it that has a location: an option that was not written points at its element.
   */
  position(
    desc: DescService | DescMethod | DescMessage | DescEnum | DescField,
    relative: readonly number[] = [],
  ): SourcePosition {
    const file = fileOf(desc);
    const { locations, firstBelow } = this.index(file);
    const full = [...this.pathOf(desc), ...relative];
    for (let n = full.length; n >= 0; n--) {
      const key = full.slice(0, n).join(",");
      const found = locations.get(key) ?? (n > 0 ? firstBelow.get(key) : undefined);
      if (found && found.span.length >= 2) {
        return { file: file.proto.name, line: (found.span[0] ?? 0) + 1, column: (found.span[1] ?? 0) + 1 };
      }
    }
    return { file: file.proto.name, line: 1, column: 1 };
  }

  /** The element's leading comment, one space of indentation removed per line, trimmed; "" if none. */
  leadingComment(desc: DescService | DescMethod | DescMessage | DescEnum | DescField): string {
    const found = this.index(fileOf(desc)).locations.get(this.pathOf(desc).join(","));
    return normalizeComment(found?.leadingComments ?? "");
  }

  /** The leading comment of an enum value (by index in its enum). */
  enumValueComment(desc: DescEnum, index: number): string {
    const found = this.index(desc.file).locations.get([...this.pathOf(desc), ENUM_VALUE, index].join(","));
    return normalizeComment(found?.leadingComments ?? "");
  }
}

function before(a: readonly number[], b: readonly number[]): boolean {
  return (a[0] ?? 0) < (b[0] ?? 0) || ((a[0] ?? 0) === (b[0] ?? 0) && (a[1] ?? 0) < (b[1] ?? 0));
}

function fileOf(desc: DescService | DescMethod | DescMessage | DescEnum | DescField): DescFile {
  switch (desc.kind) {
    case "rpc":
      return desc.parent.file;
    case "field":
      return desc.parent.file;
    default:
      return desc.file;
  }
}

/** A protoc comment as text: `// Reads a file.` arrives as " Reads a file.\n". */
export function normalizeComment(raw: string): string {
  return raw
    .split("\n")
    .map((line) => (line.startsWith(" ") ? line.slice(1) : line).trimEnd())
    .join("\n")
    .trim();
}
