// The corpus Go test (test/cli/fixtures/real-providers) run in the kernel's source tree: the
// kernel's own pluginruntime.Launch starts each case's executable, configures it and makes one call.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import {
  goTestEnvironment,
  goVersion,
  locateSnapshot,
  runGo,
  unpackKernel,
} from "../../runtime/kernel/kernel-snapshot.js";
import { repoRoot } from "../../support/buf.js";

/** One executable for the kernel to launch, as the Go test reads it (HARNESS_TOOL_CORPUS). */
export interface CorpusCase {
  readonly name: string;
  readonly executable: string;
  /** The HOME the kernel passes on: where the executable unpacks what it carries. */
  readonly home: string;
  readonly tool: string;
  readonly args: object;
  readonly config: object;
  /** Text the call's result must hold. */
  readonly expect: string;
}

/** Runs the corpus Go test over `cases` in a kernel tree named `variant`; its exit code and output. */
export async function launchByKernel(
  cases: readonly CorpusCase[],
  variant: string,
): Promise<{ code: number | null; output: string }> {
  const tree = unpackKernel(locateSnapshot(), goVersion(), variant);
  writeFileSync(
    path.join(tree.moduleRoot, "internal/pluginruntime/harness_tool_corpus_test.go"),
    readFileSync(path.join(repoRoot, "test/cli/fixtures/real-providers/harness_tool_corpus_test.go.txt")),
  );
  const args = "test -tags integration -count=1 -v -run ^TestHarnessToolCorpus_ ./internal/pluginruntime/".split(" ");
  const run = await runGo(tree, args, goTestEnvironment(tree, { HARNESS_TOOL_CORPUS: JSON.stringify(cases) }));
  return { code: run.code, output: run.stdout + run.stderr };
}
