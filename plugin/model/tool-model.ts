/**
 * The model of one tool: its checked declaration, its input and output (shape, JSON Schema and
 * the names the generated code gives them) and its handler members. provider-model.ts builds it.
 */
import type { JsonSchemaObject, ToolDeclaration } from "harness-tool/schema";
import type { NamedShape } from "./value-shape.js";

/** A tool's input or output. */
export interface ToolMessageModel {
  /** The type the handler sees, e.g. `ReadFileInput`. */
  readonly typeName: string;
  /** The message's shape; `shape.typeName` differs from `typeName` when the message is shared. */
  readonly shape: NamedShape;
  readonly schema: JsonSchemaObject;
  /** The identifiers of the JSON Schema constant and the validator. */
  readonly schemaConst: string;
  readonly validator: string;
  /** The tool whose constant this one aliases (same message), if any. */
  readonly sameAs?: ToolMessageModel;
}

/** One tool, resolved. */
export interface ToolModel {
  readonly rpcName: string;
  /** The rpc's full name (`pkg.Service.Rpc`), for the generated code's `@generated from`. */
  readonly protoName: string;
  /** `Service.Rpc`, for diagnostics. */
  readonly scope: string;
  readonly declaration: ToolDeclaration;
  /** The handler method (`readFile`) and, with preview, the preview method (`previewReadFile`). */
  readonly handlerName: string;
  readonly previewName: string | undefined;
  /** The tool constant, e.g. `readFileTool`. */
  readonly toolConst: string;
  readonly input: ToolMessageModel;
  readonly output: ToolMessageModel;
}
