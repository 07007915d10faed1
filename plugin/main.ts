/**
 * The protoc-gen-harness-tool executable: reads a CodeGeneratorRequest from stdin and writes the
 * CodeGeneratorResponse to stdout; `--version` prints the version. As protoplugin's `runNodeJs`
 * does, which cannot run this plugin: it needs the response synchronously, and the plugin awaits
 * json-schema-to-typescript's `compile()` (run-protoc-plugin.ts). An error prints as one line on
 * stderr, `protoc-gen-harness-tool: <message>`, with exit status 1.
 */
import { fromBinary, toBinary } from "@bufbuild/protobuf";
import { CodeGeneratorRequestSchema, CodeGeneratorResponseSchema } from "@bufbuild/protobuf/wkt";
import { protocGenHarnessTool as plugin } from "./run-protoc-plugin.js";

async function main(args: readonly string[]): Promise<number> {
  if ((args.length === 1 && args[0] === "-v") || args[0] === "--version") {
    process.stdout.write(`${plugin.name} ${plugin.version}\n`);
    return 0;
  }
  if (args.length !== 0) {
    process.stderr.write(
      `${plugin.name} accepts a google.protobuf.compiler.CodeGeneratorRequest on stdin and writes a CodeGeneratorResponse to stdout\n`,
    );
    return 1;
  }
  try {
    const request = fromBinary(CodeGeneratorRequestSchema, await bytes(process.stdin));
    const response = toBinary(CodeGeneratorResponseSchema, await plugin.run(request));
    await new Promise<void>((resolve, reject) =>
      process.stdout.write(response, (error) => (error ? reject(error) : resolve())),
    );
    return 0;
  } catch (reason) {
    process.stderr.write(`${plugin.name}: ${reason instanceof Error ? reason.message : String(reason)}\n`);
    return 1;
  }
}

/** All of `stream`. */
async function bytes(stream: NodeJS.ReadableStream): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks);
}

process.exit(await main(process.argv.slice(2)));
