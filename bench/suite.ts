/** What every suite receives from bench/run.ts, and what it returns. */
import type { BenchWorkspace, PackageBuild } from "./bench-workspace.js";
import type { SuiteReport } from "./report.js";

/** Options shared by the suites. */
export interface SuiteContext {
  /** A fast smoke run: smallest sizes, fewest repetitions, short limits. */
  readonly quick: boolean;
  /** Tool counts to measure (codegen and type-check). */
  readonly sizes: readonly number[];
  /** Repetitions per contender, when given on the command line (--runs=N). */
  readonly runs: number | undefined;
  /** Profile harness-tool where a suite supports it (--profile: the plugin's CPU profile per codegen case). */
  readonly profile: boolean;
  /** Progress lines, on stderr. */
  log(message: string): void;
  /**
   * The workspace with the package built into node_modules/harness-tool/dist, created on first
   * use and shared by the suites of this run.
   */
  packagedWorkspace(): Promise<{ readonly ws: BenchWorkspace; readonly build: PackageBuild }>;
}

/** A benchmark suite. */
export interface Suite {
  readonly id: string;
  readonly title: string;
  run(context: SuiteContext): Promise<SuiteReport>;
}
