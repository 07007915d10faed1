/**
 * The protoc-gen-harness-tool executable: reads a CodeGeneratorRequest from stdin, writes the
 * CodeGeneratorResponse to stdout, warnings to stderr. `--version` prints the version.
 */
import { fromBinary, toBinary } from "@bufbuild/protobuf";
import { CodeGeneratorRequestSchema, CodeGeneratorResponseSchema } from "@bufbuild/protobuf/wkt";
import { pluginName, pluginVersion } from "./plugin-version.js";
import { runProtocPlugin } from "./run-protoc-plugin.js";

async function readStdin(): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return new Uint8Array(Buffer.concat(chunks));
}

async function main(args: readonly string[]): Promise<number> {
  if (args[0] === "--version" || args[0] === "-v") {
    process.stdout.write(`${pluginName} ${pluginVersion}\n`);
    return 0;
  }
  if (args.length > 0) {
    process.stderr.write(`${pluginName} reads a CodeGeneratorRequest on stdin; run it through buf generate or protoc\n`);
    return 1;
  }
  const request = fromBinary(CodeGeneratorRequestSchema, await readStdin());
  const { response, warnings } = await runProtocPlugin(request);
  for (const line of warnings) process.stderr.write(`${line}\n`);
  await new Promise<void>((resolve, reject) => process.stdout.write(toBinary(CodeGeneratorResponseSchema, response), (e) => (e ? reject(e) : resolve())));
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`${pluginName}: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
