// Runs protoc-gen-harness-tool in-process on protos built by buf: the descriptor set (with
// source info) becomes a CodeGeneratorRequest, as buf would send it.
import { create, fromBinary } from "@bufbuild/protobuf";
import {
  CodeGeneratorRequestSchema,
  FileDescriptorSetSchema,
  type CodeGeneratorRequest,
  type FileDescriptorProto,
} from "@bufbuild/protobuf/wkt";
import { buildDescriptorSet } from "../../support/buf.js";
import { runProtocPlugin, type PluginRun } from "../../../plugin/run-protoc-plugin.js";

/** The files of a buf build of `input` (run in `cwd`). */
export function buildFiles(input: string, cwd?: string): FileDescriptorProto[] {
  return fromBinary(FileDescriptorSetSchema, buildDescriptorSet(input, cwd)).file;
}

/** A request to generate `fileToGenerate` out of `files`. */
export function requestFor(
  files: readonly FileDescriptorProto[],
  fileToGenerate: readonly string[],
  parameter = "target=ts",
): CodeGeneratorRequest {
  return create(CodeGeneratorRequestSchema, {
    fileToGenerate: [...fileToGenerate],
    parameter,
    protoFile: [...files],
    sourceFileDescriptors: files.filter((f) => fileToGenerate.includes(f.name)),
  });
}

/** Runs the plugin on `fileToGenerate`; a bad plugin option rejects with protoplugin's option error. */
export function generate(
  files: readonly FileDescriptorProto[],
  fileToGenerate: readonly string[],
  parameter?: string,
): Promise<PluginRun> {
  return runProtocPlugin(requestFor(files, fileToGenerate, parameter));
}
