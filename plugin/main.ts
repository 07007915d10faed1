/**
 * The protoc-gen-harness-tool executable: protoplugin's Node runner reads a CodeGeneratorRequest
 * from stdin and writes the CodeGeneratorResponse to stdout; `--version` prints the version.
 */
import { runNodeJs } from "@bufbuild/protoplugin";
import { protocGenHarnessTool } from "./run-protoc-plugin.js";

runNodeJs(protocGenHarnessTool);
