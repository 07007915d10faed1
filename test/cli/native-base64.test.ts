// cli/release/native-base64.ts: `bundle` and `release` give @bufbuild/protobuf's base64 decoder
// Node's native one (Buffer) where the runtime has no Uint8Array.prototype.setFromBase64. The
// bundled decoder must decode exactly as protobuf's own JavaScript decoder does, on every input it
// takes (plain, unpadded, base64url, white space, inner padding) and throw where it throws; plain
// base64 must go through Buffer, the rest through protobuf's loop.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { after, describe, it } from "node:test";
import { base64Decode as jsDecode } from "@bufbuild/protobuf/wire";
import { build } from "esbuild";
import { nativeBase64Plugin } from "../../cli/release/native-base64.js";

const repoRoot = path.resolve(import.meta.dirname, "../..");
const dir = mkdtempSync(path.join(tmpdir(), "harness-tool-native-base64-"));
after(() => rmSync(dir, { recursive: true, force: true }));

async function bundled(): Promise<{ decode: (text: string) => Uint8Array; text: string }> {
  const outfile = path.join(dir, "decoder.mjs");
  await build({
    stdin: { contents: 'export { base64Decode as decode } from "@bufbuild/protobuf/wire";', resolveDir: repoRoot },
    bundle: true,
    platform: "node",
    format: "esm",
    outfile,
    logLevel: "silent",
    plugins: [nativeBase64Plugin()],
  });
  return { ...(await import(pathToFileURL(outfile).href)), text: readFileSync(outfile, "utf8") };
}

const bytes = Uint8Array.from({ length: 300 }, (_, i) => (i * 151 + 7) % 256);
const plain = Buffer.from(bytes).toString("base64");
const inputs = [
  "",
  plain,
  plain.replace(/=+$/, ""),
  Buffer.from(bytes.subarray(0, 4)).toString("base64"),
  Buffer.from(bytes.subarray(0, 5)).toString("base64"),
  Buffer.from(bytes).toString("base64url"),
  `${plain.slice(0, 40)}\n${plain.slice(40, 80)} \t${plain.slice(80)}`,
  "QUI=Q0Q=",
  "A",
  "QUJD$",
  "QUJ",
  "QUJDR",
  "QUJDR==",
  "QQ=",
  "Q===",
];

describe("protobuf's base64 decoder in a bundle", () => {
  it("is Node's where the runtime has no native one: the plugin's line is in the bundle", async (t) => {
    if (typeof (Uint8Array.prototype as { setFromBase64?: unknown }).setFromBase64 === "function")
      t.skip("this Node has Uint8Array.prototype.setFromBase64: protobuf uses it, the stand-in is unused");
    const { text } = await bundled();
    // Fails when an update of @bufbuild/protobuf changes the line the plugin replaces.
    assert.match(text, /nodeSetFromBase64/);
  });

  it("decodes every input as protobuf's JavaScript decoder does, and throws where it throws", async () => {
    const { decode } = await bundled();
    for (const input of inputs) {
      let want: Uint8Array | Error;
      try {
        want = jsDecode(input);
      } catch (error) {
        want = error as Error;
      }
      if (want instanceof Error) assert.throws(() => decode(input), `${JSON.stringify(input)} decoded`);
      else assert.deepEqual(Buffer.from(decode(input)), Buffer.from(want), JSON.stringify(input));
    }
  });

  it("decodes plain base64 with Buffer and leaves the rest to protobuf's loop", async () => {
    const { decode } = await bundled();
    const from = Buffer.from;
    let native = 0;
    Buffer.from = function (this: unknown, ...args: unknown[]) {
      if (args[1] === "base64") native += 1;
      return (from as (...a: unknown[]) => Buffer).apply(this, args);
    } as typeof Buffer.from;
    try {
      decode(plain);
      assert.equal(native, 1, "plain base64 went through Buffer");
      decode(Buffer.from(bytes).toString("base64url"));
      decode(`${plain.slice(0, 40)}\n${plain.slice(40)}`);
      assert.equal(native, 1, "base64url and white space went through protobuf's own decoder");
    } finally {
      Buffer.from = from;
    }
  });
});
