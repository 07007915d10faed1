/**
 * `npm run demo`: harness-tool's main job in one command. Generates the exec example provider from
 * its proto with buf (protoc-gen-harness-tool) into a fresh folder, launches the
 * result through the go-plugin handshake exactly as the kernel would, and invokes its streaming,
 * process-backed `bash` tool with `harness-tool invoke`, showing the events as they arrive.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { main } from "../cli/main.js";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const example = path.join(repo, "examples/exec");
const work = mkdtempSync(path.join(tmpdir(), "harness-tool-demo-"));

function step(text: string): void {
  process.stdout.write(`\n== ${text}\n`);
}

function countFiles(dir: string): number {
  return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length;
}

try {
  step("buf generate: examples/exec/proto -> a fresh src/gen (protoc-gen-harness-tool)");
  const nativeBuf = path.join(repo, "node_modules/@bufbuild/buf-linux-x64/bin/buf");
  const buf =
    process.platform === "linux" && process.arch === "x64" ? nativeBuf : path.join(repo, "node_modules/.bin/buf");
  const generated = spawnSync(buf, ["generate", "-o", work], {
    cwd: example,
    stdio: ["ignore", "inherit", "inherit"],
    env: {
      ...process.env,
      PATH: `${path.join(repo, "node_modules/.bin")}${path.delimiter}${process.env["PATH"] ?? ""}`,
    },
  });
  if (generated.status !== 0) throw new Error("buf generate failed");
  process.stdout.write(`wrote ${countFiles(path.join(work, "src/gen"))} files under ${path.join(work, "src/gen")}\n`);

  // The example's hand-written handlers and entry, beside the freshly generated code.
  for (const file of ["handlers.ts", "main.ts"]) cpSync(path.join(example, "src", file), path.join(work, "src", file));
  mkdirSync(path.join(work, "node_modules"));
  symlinkSync(path.join(repo, "runtime"), path.join(work, "node_modules/harness-tool"));
  symlinkSync(path.join(repo, "node_modules/@bufbuild"), path.join(work, "node_modules/@bufbuild"));
  // What the kernel starts: one executable, no shell features needed at launch.
  const entry = path.join(work, "provider");
  writeFileSync(
    entry,
    `#!/bin/sh\nexec "${process.execPath}" --conditions=harness-tool-source --import "${path.join(repo, "node_modules/tsx/dist/esm/index.mjs")}" "${path.join(work, "src/main.ts")}"\n`,
  );
  chmodSync(entry, 0o755);
  writeFileSync(path.join(work, "package.json"), JSON.stringify({ type: "module", private: true }));
  writeFileSync(path.join(work, "config.json"), JSON.stringify({ allowed_roots: [work] }));

  step("harness-tool schema: launched through the go-plugin handshake");
  if ((await main(["schema", entry])) !== 0) throw new Error("schema failed");

  step("harness-tool invoke bash: output chunks live, then exit_status and the result");
  const script =
    "for i in 1 2 3 4 5; do echo \"line $i from the child process\"; sleep 0.2; done; echo 'done, on stderr' >&2; exit 3";
  const code = await main([
    "invoke",
    entry,
    "bash",
    "--config",
    path.join(work, "config.json"),
    "--cwd",
    work,
    "--args",
    JSON.stringify({ command: script }),
  ]);
  step(`exit code ${code} (the command's exit 3 is ordinary content of a successful result)`);
  step("the same provider in a browser: harness-tool inspect");
  process.stdout.write(
    [
      "Run the example from this checkout under the inspector, then open the URL it prints:",
      "",
      `  echo '{"allowed_roots": ["${process.cwd()}"]}' > /tmp/exec-config.json`,
      "  npx harness-tool inspect examples/exec --config /tmp/exec-config.json",
      "",
      "It serves a local page (127.0.0.1, a random token in the URL, nothing opened by itself) with a form",
      "per tool, Preview, the stream live with Cancel, Configure, the history, logs and kernel callbacks.",
      "",
    ].join("\n"),
  );
  process.exitCode = code;
} catch (e) {
  process.stderr.write(`demo: ${(e as Error).message}\n`);
  process.exitCode = 1;
} finally {
  rmSync(work, { recursive: true, force: true });
}
