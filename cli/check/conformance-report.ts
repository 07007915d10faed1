/** The conformance report: one row per rule checked, and how to print it. */
import { renderTable } from "../terminal/table.js";

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
 * The report as a table `width` columns wide: the reasons wrap onto more lines; when that is not
 * enough, the spec section and then the rule are cut, with an ellipsis.
 */
export function renderReport(results: readonly RuleResult[], width = 80): string {
  const counts = { pass: 0, fail: 0, skip: 0, warn: 0 };
  for (const r of results) counts[r.status]++;
  const table = renderTable(
    ["rule", "spec section", "result", "why"],
    results.map((r) => [r.rule, r.section, r.status, r.why]),
    {
      width,
      overflow: ["truncate", "truncate", "truncate", "wrap"],
      // The reasons wrap first (nothing is lost) down to 36 columns; then unusually long rule ids
      // are cut to 34, the section to 12, the reasons narrow to 24 and the rule ids to 20.
      shrink: [
        { column: 3, downTo: 36 },
        { column: 0, downTo: 34 },
        { column: 1, downTo: 12 },
        { column: 3, downTo: 24 },
        { column: 0, downTo: 20 },
      ],
    },
  );
  // Not "N passed, N failed" alone on a line: CI reads that shape as a test-runner summary.
  return `${table}\nrules: ${counts.pass} pass, ${counts.fail} fail, ${counts.skip} skip, ${counts.warn} warn\n`;
}

/** True when no rule failed. */
export function reportPassed(results: readonly RuleResult[]): boolean {
  return results.every((r) => r.status !== "fail");
}
