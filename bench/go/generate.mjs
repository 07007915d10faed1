// Regenerates bench/go/gen (the Go bindings of ToolService for the bench's Go provider) from
// proto/: installs protoc-gen-go and protoc-gen-go-grpc at the pinned versions from the Go module
// proxy into a temp dir, then runs buf with bench/go/buf.gen.yaml. Run from anywhere:
//   node bench/go/generate.mjs
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const plugins = [
  "google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.11",
  "google.golang.org/grpc/cmd/protoc-gen-go-grpc@v1.6.0",
];
const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const bin = mkdtempSync(path.join(os.tmpdir(), "harness-tool-protoc-gen-go-"));
try {
  for (const plugin of plugins)
    execFileSync("go", ["install", plugin], { env: { ...process.env, GOBIN: bin }, stdio: "inherit" });
  execFileSync(path.join(repo, "node_modules/.bin/buf"), ["generate", "--template", "bench/go/buf.gen.yaml"], {
    cwd: repo,
    env: { ...process.env, PATH: `${bin}${path.delimiter}${process.env.PATH}` },
    stdio: "inherit",
  });
} finally {
  rmSync(bin, { recursive: true, force: true });
}
