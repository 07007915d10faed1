/**
 * An esbuild plugin for `bundle` and `release`: @bufbuild/protobuf's base64 decoder gets Node's
 * native one (Buffer) where the runtime lacks `Uint8Array.prototype.setFromBase64` (Node 24 does).
 * Every generated `_pb` module decodes its embedded file descriptor at load; the JavaScript loop
 * over those strings is hot enough that V8 compiles it with TurboFan during start-up, which pages
 * about 5 MB of the compiler's own code into the provider's memory (bench/RESULTS.md, "Idle memory
 * cuts"). The stand-in takes only plain base64 (the alphabet, padding at the end, no lone last
 * character) and throws on anything else, so protobuf's own decoder still handles base64url, white
 * space and inner padding, and still rejects what it rejects.
 */
import { readFile } from "node:fs/promises";
import type { Plugin } from "esbuild";

/** The line of @bufbuild/protobuf's wire/base64-encoding.js that picks the native decoder. */
export const nativeDecoderLine = "const nativeSetFromBase64 = Uint8Array.prototype.setFromBase64;";

/** Node's decoder in the native one's shape: `{ read, written }`, throwing where it would not match. */
export const nodeDecoderText = [
  "const nativeSetFromBase64 = Uint8Array.prototype.setFromBase64 ?? function nodeSetFromBase64(text) {",
  '  if (typeof text !== "string" || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) throw new SyntaxError("not plain base64");',
  '  if (text.replace(/=+$/, "").length % 4 === 1) throw new SyntaxError("invalid base64 string");',
  '  const bytes = Buffer.from(text, "base64");',
  '  if (bytes.length > this.length) throw new RangeError("the decoded bytes do not fit");',
  "  this.set(bytes);",
  "  return { read: text.length, written: bytes.length };",
  "};",
].join("\n");

/** The plugin; a version of the file without the line is bundled as it is. */
export function nativeBase64Plugin(): Plugin {
  return {
    name: "harness-tool-native-base64",
    setup(build) {
      build.onLoad(
        { filter: /[\\/]@bufbuild[\\/]protobuf[\\/]dist[\\/]esm[\\/]wire[\\/]base64-encoding\.js$/ },
        async (args) => {
          const text = await readFile(args.path, "utf8");
          return text.includes(nativeDecoderLine)
            ? { contents: text.replace(nativeDecoderLine, nodeDecoderText), loader: "js" }
            : undefined;
        },
      );
    },
  };
}
