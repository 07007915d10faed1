/**
 * What the Go side of the kernel-launch test drives: executables the kernel can start (one path,
 * no arguments: a script that execs node on a TypeScript provider) and, for every
 * examples/<name>/src/main.ts, the config and calls of its scenario. Written as JSON for
 * harness_tool_kernel_side_test.go (harnessManifest).
 */
import { chmodSync, existsSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { Writable } from "node:stream";
import { bundleCommand } from "../../../cli/commands/bundle-command.js";
import { repoRoot } from "../../support/buf.js";
import { writeProviderScript } from "../../support/provider-script.js";

/** One Invoke of an example and the terminal event it must end with (harnessInvoke). */
interface ExampleInvoke {
  readonly tool: string;
  readonly arguments: { readonly [key: string]: unknown };
  readonly workingDirectory?: string;
  /** Fields the result payload must hold. */
  readonly result?: { readonly [key: string]: unknown };
  /** The terminal ToolError's category, as the Go enum name. */
  readonly error?: string;
  /** A part of the error's message. */
  readonly message?: string;
}

/** An example's scenario (harnessExample without the executable). */
interface ExampleScenario {
  readonly producer: string;
  readonly tools: readonly string[];
  readonly config: { readonly [key: string]: unknown };
  readonly invokes: readonly ExampleInvoke[];
}

/** What the scenarios of the examples need from the test. */
export interface ExampleWorld {
  /** A folder holding `notes/a.txt` ("one\ntwo\n"), the allowed root of filesystem, search and exec. */
  readonly root: string;
  /** An HTTP server on 127.0.0.1: `/search` (bearer `k-secret`) answers one result, `/page` a text. */
  readonly webOrigin: string;
}

/** The scenario of each example, by folder name; every example with a main.ts must have one. */
function exampleScenarios(world: ExampleWorld): { readonly [name: string]: ExampleScenario } {
  const inRoot = { workingDirectory: world.root };
  return {
    agent: {
      producer: "agent",
      tools: ["spawn_subagent"],
      config: { profile: "helper" },
      // The kernel answers RunSession with UNIMPLEMENTED at f045591.
      invokes: [
        {
          tool: "spawn_subagent",
          arguments: { prompt: "look around" },
          error: "TOOL_ERROR_CATEGORY_EXECUTION_FAILED",
          message: "RunSession",
        },
      ],
    },
    exec: {
      producer: "exec",
      tools: ["bash"],
      config: { allowed_roots: [world.root] },
      invokes: [
        { tool: "bash", arguments: { command: "cat notes/a.txt" }, ...inRoot, result: { exit_code: 0 } },
        { tool: "bash", arguments: { command: "exit 4" }, ...inRoot, result: { exit_code: 4 } },
      ],
    },
    filesystem: {
      producer: "filesystem",
      tools: ["read_file", "write_file", "edit_file"],
      config: { allowed_roots: [world.root] },
      invokes: [
        { tool: "read_file", arguments: { path: "notes/a.txt" }, ...inRoot, result: { content: "one\ntwo\n" } },
        {
          tool: "read_file",
          arguments: { path: "notes/missing.txt" },
          ...inRoot,
          error: "TOOL_ERROR_CATEGORY_NOT_FOUND",
        },
        {
          tool: "read_file",
          arguments: { path: "/etc/hostname" },
          ...inRoot,
          error: "TOOL_ERROR_CATEGORY_PERMISSION_DENIED",
        },
      ],
    },
    guard: {
      producer: "guard",
      tools: ["check_path"],
      config: { root: world.root },
      invokes: [
        {
          tool: "check_path",
          arguments: { path: "notes/a.txt" },
          result: { inside: true, resolved: `${world.root}/notes/a.txt` },
        },
        { tool: "check_path", arguments: { path: "../elsewhere" }, result: { inside: false } },
      ],
    },
    search: {
      producer: "search",
      tools: ["glob", "grep"],
      config: { allowed_roots: [world.root] },
      invokes: [
        {
          tool: "glob",
          arguments: { pattern: "**/*.txt" },
          ...inRoot,
          result: { files: ["notes/a.txt"], truncated: false },
        },
        {
          tool: "grep",
          arguments: { pattern: "tw" },
          ...inRoot,
          result: { matches: [{ file: "notes/a.txt", line: 2, text: "two" }], truncated: false },
        },
      ],
    },
    task: {
      producer: "task",
      tools: ["task_create", "task_update", "task_list"],
      config: {},
      invokes: [
        {
          tool: "task_create",
          arguments: { title: "write the report" },
          result: { task: { id: "t1", title: "write the report", status: "pending" } },
        },
        { tool: "task_update", arguments: { id: "t9", status: "done" }, error: "TOOL_ERROR_CATEGORY_NOT_FOUND" },
      ],
    },
    user: {
      producer: "user",
      tools: ["ask_user"],
      config: {},
      // A person answers through the kernel's frontend, from the prompt Preview gives; Invoke is the
      // development fallback on the terminal the provider inherits (a developer's, when these tests
      // run in one), so only a call that never reaches it runs here: test/runtime/interop's
      // interactive.test.ts covers the rest without a terminal.
      invokes: [{ tool: "ask_user", arguments: {}, error: "TOOL_ERROR_CATEGORY_INVALID_ARGUMENTS" }],
    },
    web: {
      producer: "web",
      tools: ["web_search", "web_fetch"],
      config: { api_key: "k-secret", endpoint: `${world.webOrigin}/search`, allowed_domains: ["127.0.0.1"] },
      invokes: [
        {
          tool: "web_search",
          arguments: { query: "kernels" },
          result: { results: [{ title: "Kernels", url: "https://example.org/kernels", snippet: "about kernels" }] },
        },
        {
          tool: "web_fetch",
          arguments: { url: `${world.webOrigin}/page` },
          result: { status: 200, body: "a page for the kernel test" },
        },
        {
          tool: "web_fetch",
          arguments: { url: "https://example.org/" },
          error: "TOOL_ERROR_CATEGORY_PERMISSION_DENIED",
        },
      ],
    },
  };
}

/** The examples that have an entry point, by folder name. */
export function exampleNames(): string[] {
  const dir = path.join(repoRoot, "examples");
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(path.join(dir, entry.name, "src/main.ts")))
    .map((entry) => entry.name)
    .sort();
}

/** Fixtures of this test, relative to the repository root. */
const fixtures = {
  sample: "test/runtime/transport/fixtures/sample-provider.ts",
  probe: "test/runtime/kernel/fixtures/kernel-probe-provider.ts",
  startFault: "test/runtime/kernel/fixtures/start-fault-provider.ts",
  broken: "test/runtime/transport/fixtures/broken-provider.ts",
  belowJavaScript: "test/runtime/transport/fixtures/below-javascript-provider.ts",
} as const;

/** The fixture the kernel's own integration test launches in place of its Go one. */
export const kernelFixture = "test/runtime/kernel/fixtures/kernel-fixture-provider.ts";

/**
 * `harness-tool bundle`'s executable of `fixture` in `dir/<name>/`, and a script that execs node on
 * it (the kernel starts one path; the executable's `#!/usr/bin/env node` would depend on PATH).
 */
async function writeBundledProviderScript(dir: string, name: string, fixture: string): Promise<string> {
  const outfile = path.join(dir, name, "provider.mjs");
  const silent = new Writable({ write: (_chunk, _encoding, done) => done() });
  await bundleCommand(path.join(repoRoot, fixture), { outfile, external: [], out: silent });
  const file = path.join(dir, `${name}.sh`);
  writeFileSync(file, `#!/bin/sh\nexec "${process.execPath}" "${outfile}" "$@"\n`);
  chmodSync(file, 0o755);
  return file;
}

/**
 * Writes the provider scripts into `dir` and the manifest beside them; returns the manifest's
 * path. Fails when an example has no scenario.
 */
export async function writeKernelLaunchManifest(
  dir: string,
  world: ExampleWorld,
  hostOnlyVariable: string,
): Promise<string> {
  const scenarios = exampleScenarios(world);
  const providers: { [role: string]: string } = {
    sample: writeProviderScript(dir, "sample", fixtures.sample),
    probe: writeProviderScript(dir, "kernel-probe", fixtures.probe),
    broken: writeProviderScript(dir, "broken", fixtures.broken),
    "below-javascript": writeProviderScript(dir, "below-javascript", fixtures.belowJavaScript),
    // The same provider as `harness-tool bundle` ships it: supervision decided before the bundle loads.
    "below-javascript-bundled": await writeBundledProviderScript(
      dir,
      "below-javascript-bundled",
      fixtures.belowJavaScript,
    ),
  };
  for (const fault of ["exit", "throw", "hang", "stdout"]) {
    providers[`fault:${fault}`] = writeProviderScript(dir, `start-fault-${fault}`, fixtures.startFault, {
      HARNESS_TOOL_START_FAULT: fault,
    });
  }
  const examples = exampleNames().map((name) => {
    const scenario = scenarios[name];
    if (scenario === undefined)
      throw new Error(
        `examples/${name} has no kernel-launch scenario: add one to test/runtime/kernel/kernel-launch-manifest.ts`,
      );
    return {
      name: `examples/${name}`,
      executable: writeProviderScript(dir, `example-${name}`, `examples/${name}/src/main.ts`),
      ...scenario,
    };
  });
  const file = path.join(dir, "manifest.json");
  writeFileSync(
    file,
    `${JSON.stringify({ providers, examples, hostOnlyVariable, nodeExecutable: process.execPath }, null, 2)}\n`,
  );
  return file;
}
