/**
 * `go test -json` output (test2json events) folded into one outcome per test, and rendered as
 * the `# ` lines the kernel-launch test prints into the test output.
 */

/** One test2json event. */
interface GoTestEvent {
  readonly Action: string;
  readonly Package?: string;
  readonly Test?: string;
  readonly Elapsed?: number;
  readonly Output?: string;
}

/** How one Go test (or subtest, `TestA/case`) ended, with everything it printed. */
export interface GoTestOutcome {
  readonly name: string;
  readonly action: "pass" | "fail" | "skip" | "unfinished";
  readonly elapsedSeconds: number;
  readonly output: string;
}

/** A whole `go test -json` run. */
export interface GoTestRun {
  /** Tests in the order they started. */
  readonly tests: readonly GoTestOutcome[];
  /** Output not attributed to a test (build errors, package summary). */
  readonly packageOutput: string;
  /** Lines the tests printed as `harness-tool note: ...`. */
  readonly notes: readonly string[];
}

/** Folds the JSON lines of `go test -json`; other lines (a build failure's text) count as package output. */
export function parseGoTestJson(stdout: string): GoTestRun {
  const tests = new Map<string, { action: GoTestOutcome["action"]; elapsedSeconds: number; output: string[] }>();
  const packageOutput: string[] = [];
  const notes: string[] = [];
  for (const line of stdout.split("\n")) {
    if (line.trim() === "") continue;
    let event: GoTestEvent;
    try {
      event = JSON.parse(line) as GoTestEvent;
    } catch {
      packageOutput.push(`${line}\n`);
      continue;
    }
    if (event.Test === undefined) {
      if (event.Output !== undefined) packageOutput.push(event.Output);
      continue;
    }
    const test = tests.get(event.Test) ?? { action: "unfinished" as const, elapsedSeconds: 0, output: [] };
    tests.set(event.Test, test);
    if (event.Action === "output" && event.Output !== undefined) {
      test.output.push(event.Output);
      const noted = /harness-tool note: (.*)$/.exec(event.Output.trimEnd());
      if (noted?.[1] !== undefined) notes.push(`${event.Test}: ${noted[1]}`);
    } else if (event.Action === "pass" || event.Action === "fail" || event.Action === "skip") {
      test.action = event.Action;
      test.elapsedSeconds = event.Elapsed ?? 0;
    }
  }
  return {
    tests: [...tests].map(([name, t]) => ({
      name,
      action: t.action,
      elapsedSeconds: t.elapsedSeconds,
      output: t.output.join(""),
    })),
    packageOutput: packageOutput.join(""),
    notes,
  };
}

/** Passed, failed and skipped counts, with unfinished tests counted as failed. */
export function countOutcomes(tests: readonly GoTestOutcome[]): { passed: number; failed: number; skipped: number } {
  return {
    passed: tests.filter((t) => t.action === "pass").length,
    failed: tests.filter((t) => t.action === "fail" || t.action === "unfinished").length,
    skipped: tests.filter((t) => t.action === "skip").length,
  };
}

/**
 * One `# go test` line per test: its outcome, name and time. Never `# pass …` or `# fail …` at the
 * start of a line: those are the runner's summary lines, which CI reads.
 */
export function outcomeLines(tests: readonly GoTestOutcome[]): string[] {
  return tests.map((t) => `# go test ${t.action.padEnd(10)} ${t.name} (${t.elapsedSeconds.toFixed(2)} s)`);
}
