/** The conformance report: one row per rule checked, and how to print it. */
import { renderTable, type TableLayout, tableFits } from "../terminal/table.js";

/** How a rule fared. `warn` marks a SHOULD that is not met; it does not fail the run. */
export type RuleStatus = "pass" | "fail" | "skip" | "warn";

/** One row of the report. */
export interface RuleResult {
  /** Stable id, e.g. "schema.risk-matches-kind" or "invoke.invalid-arguments:read_file". */
  readonly rule: string;
  /** Where the protocol says it. */
  readonly section: string;
  readonly status: RuleStatus;
  /** Why it passed, failed or was skipped; empty when there is nothing to add. */
  readonly why: string;
}

/** A row of the report. */
export function ruleResult(rule: string, section: string, status: RuleStatus, why = ""): RuleResult {
  return { rule, section, status, why };
}

/**
 * The report as a table `width` columns wide. Nothing is cut: the reasons wrap onto more lines (at
 * spaces, else between tokens: after a comma, a slash, a bar); the spec section wraps too, and is
 * left out (it stays in `--json`) when the rule ids and readable reasons would not fit beside it;
 * only then do unusually long rule ids wrap, after a dot, dash or colon.
 */
export function renderReport(results: readonly RuleResult[], width = 80): string {
  const counts = { pass: 0, fail: 0, skip: 0, warn: 0 };
  for (const r of results) counts[r.status]++;
  const withSection: TableLayout = {
    width,
    overflow: ["wrap", "wrap", "wrap", "wrap"],
    shrink: [
      { column: 3, downTo: 36 },
      { column: 1, downTo: 16 },
      { column: 0, downTo: 36 },
    ],
  };
  const table = tableFits(["rule", "spec section", "result", "why"], rows(results, true), withSection)
    ? renderTable(["rule", "spec section", "result", "why"], rows(results, true), withSection)
    : renderTable(["rule", "result", "why"], rows(results, false), {
        width,
        overflow: ["wrap", "wrap", "wrap"],
        shrink: [
          { column: 2, downTo: 40 },
          { column: 0, downTo: 36 },
          { column: 2, downTo: 30 },
          { column: 0, downTo: 24 },
          { column: 2, downTo: 20 },
        ],
      });
  // Not "N passed, N failed" alone on a line: CI reads that shape as a test-runner summary.
  return `${table}\nrules: ${counts.pass} pass, ${counts.fail} fail, ${counts.skip} skip, ${counts.warn} warn\n`;
}

function rows(results: readonly RuleResult[], section: boolean): string[][] {
  return results.map((r) => (section ? [r.rule, r.section, r.status, r.why] : [r.rule, r.status, r.why]));
}

/** True when no rule failed. */
export function reportPassed(results: readonly RuleResult[]): boolean {
  return results.every((r) => r.status !== "fail");
}
