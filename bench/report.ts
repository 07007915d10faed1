/**
 * The bench's results: figures with their baseline, ratio and target; a text table per suite for
 * the terminal; and RESULTS.md, whose per-suite sections a partial run replaces while keeping the
 * others and the hand-written notes.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";

/**
 * pass/miss against a target; info when the figure has no target; FAIL when a contender failed (did
 * not build, start, compile or answer), which fails the run.
 */
export type Verdict = "pass" | "miss" | "info" | "FAIL";

/** One reported figure. */
export interface Figure {
  readonly name: string;
  readonly value: string;
  readonly baseline?: string;
  readonly ratio?: number;
  readonly target?: string;
  readonly verdict: Verdict;
  readonly note?: string;
}

/** What one suite measured. */
export interface SuiteReport {
  readonly id: string;
  readonly title: string;
  /** How it was measured: one sentence per line. */
  readonly method: readonly string[];
  readonly figures: readonly Figure[];
  /** What the reader should know beside the figures (not failures). */
  readonly notes: readonly string[];
  /** Contenders that failed (did not build, start or answer), with their errors: they fail the run. */
  readonly failures?: readonly string[];
  /** A suite's own table (markdown lines), printed and written as it is, before the figures. */
  readonly table?: readonly string[];
}

/** Everything that failed in a suite: its failures and its FAIL figures, one line each. */
export function suiteFailures(report: SuiteReport): string[] {
  return [
    ...(report.failures ?? []),
    ...report.figures.filter((f) => f.verdict === "FAIL").map((f) => `${f.name}: ${f.note ?? "failed"}`),
  ];
}

/** Formats milliseconds as ms below 1 s and as s above. */
export function formatMs(ms: number): string {
  if (!Number.isFinite(ms)) return "—";
  return ms < 1000 ? `${ms.toFixed(ms < 10 ? 2 : 1)} ms` : `${(ms / 1000).toFixed(2)} s`;
}

/** Formats KiB as MB. */
export function formatKb(kb: number | undefined): string {
  return kb === undefined || !Number.isFinite(kb) ? "—" : `${(kb / 1024).toFixed(0)} MB`;
}

/** A ratio as `1.23×`. */
export function formatRatio(ratio: number | undefined): string {
  return ratio === undefined || !Number.isFinite(ratio) ? "—" : `${ratio.toFixed(2)}×`;
}

/**
 * A figure compared with a baseline; `maxRatio` gives the target `≤ maxRatio×` (omit it for an
 * informative ratio).
 */
export function compared(
  name: string,
  value: number,
  format: (v: number) => string,
  baseline: { label: string; value: number },
  maxRatio?: number,
  note?: string,
): Figure {
  const ratio = value / baseline.value;
  const measurable = Number.isFinite(ratio);
  const verdict: Verdict = !measurable ? "FAIL" : maxRatio === undefined ? "info" : ratio <= maxRatio ? "pass" : "miss";
  return {
    name,
    value: format(value),
    baseline: `${baseline.label} ${format(baseline.value)}`,
    ...(measurable ? { ratio } : {}),
    ...(maxRatio !== undefined ? { target: `≤ ${maxRatio}×` } : {}),
    verdict,
    ...(note !== undefined ? { note } : {}),
  };
}

/** A figure without a baseline, optionally checked against an absolute limit. */
export function absolute(name: string, value: string, check?: { target: string; ok: boolean }, note?: string): Figure {
  return {
    name,
    value,
    ...(check ? { target: check.target } : {}),
    verdict: check ? (check.ok ? "pass" : "miss") : "info",
    ...(note !== undefined ? { note } : {}),
  };
}

/** A figure that could not be measured because a contender failed: it fails the run. */
export function failedFigure(name: string, why: string): Figure {
  return { name, value: "—", verdict: "FAIL", note: why };
}

/** The machine the figures come from. */
export interface MachineInfo {
  readonly cpus: number;
  readonly cpuModel: string;
  readonly memoryGb: number;
  readonly node: string;
  readonly platform: string;
  readonly date: string;
  readonly commit: string;
  readonly loadAverage: string;
}

/** Describes this machine now. */
export function machineInfo(repoRoot: string): MachineInfo {
  let commit = "unknown";
  try {
    commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: repoRoot, encoding: "utf8" }).trim();
    const dirty = execFileSync("git", ["status", "--porcelain"], { cwd: repoRoot, encoding: "utf8" }).trim() !== "";
    if (dirty) commit += " (uncommitted changes in the checkout)";
  } catch {
    // not a git checkout
  }
  return {
    cpus: os.availableParallelism(),
    cpuModel: os.cpus()[0]?.model.trim() ?? "unknown",
    memoryGb: os.totalmem() / 2 ** 30,
    node: process.version,
    platform: `${os.type()} ${os.release()} ${os.arch()}`,
    date: new Date().toISOString(),
    commit,
    loadAverage: os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(" "),
  };
}

/** One line describing the machine. */
export function machineLine(m: MachineInfo): string {
  return `${m.cpus} cores (${m.cpuModel}), ${m.memoryGb.toFixed(1)} GB, Node ${m.node}, ${m.platform}; commit ${m.commit}; load average at start ${m.loadAverage}; ${m.date}`;
}

const columns = ["figure", "value", "baseline", "ratio", "target", "verdict", "note"] as const;

function cells(f: Figure): string[] {
  return [
    f.name,
    f.value,
    f.baseline ?? "",
    formatRatio(f.ratio).replace("—", ""),
    f.target ?? "",
    f.verdict,
    f.note ?? "",
  ];
}

/** The suite as an aligned text table for the terminal. */
export function textTable(report: SuiteReport): string {
  const rows = [columns.map(String), ...report.figures.map(cells)];
  const widths = columns.map((_, i) => Math.min(60, Math.max(...rows.map((r) => (r[i] ?? "").length))));
  const line = (r: readonly string[]) =>
    r
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join("  ")
      .trimEnd();
  const out = [`== ${report.title}`, ...(report.table ?? []), line(rows[0] as string[]), ...rows.slice(1).map(line)];
  for (const n of report.notes) out.push(`   note: ${n}`);
  for (const f of report.failures ?? []) out.push(`   FAILED: ${f}`);
  return out.join("\n");
}

function markdownCell(text: string): string {
  return text.replaceAll("|", "\\|").replaceAll("\n", " ");
}

/** The suite as a RESULTS.md section, between markers a later partial run can find. */
export function markdownSection(report: SuiteReport, machine: MachineInfo, mode: string): string {
  const lines = [
    `<!-- suite:${report.id} -->`,
    `## ${report.title}`,
    "",
    `Measured ${machine.date} (${mode}) on ${machineLine(machine)}.`,
    "",
    ...report.method.map((m) => `- ${m}`),
    "",
    ...(report.table && report.table.length > 0 ? [...report.table, ""] : []),
    `| ${columns.join(" | ")} |`,
    `| ${columns.map(() => "---").join(" | ")} |`,
    ...report.figures.map((f) => `| ${cells(f).map(markdownCell).join(" | ")} |`),
  ];
  if (report.notes.length > 0) lines.push("", ...report.notes.map((n) => `- ${n}`));
  const failures = report.failures ?? [];
  if (failures.length > 0) lines.push("", ...failures.map((f) => `- FAILED: ${f}`));
  lines.push(`<!-- /suite:${report.id} -->`);
  return lines.join("\n");
}

const notesMarker = "<!-- notes: hand-written, kept by every run -->";

/**
 * Writes RESULTS.md: the header, every suite section (this run's, plus the previous file's for
 * suites not run now, in `order`), and the previous file's hand-written notes.
 */
export function writeResults(
  file: string,
  header: string,
  sections: ReadonlyMap<string, string>,
  order: readonly string[],
): void {
  const previous = existsSync(file) ? readFileSync(file, "utf8") : "";
  const kept = new Map<string, string>();
  for (const m of previous.matchAll(/<!-- suite:([\w-]+) -->[\s\S]*?<!-- \/suite:\1 -->/g)) {
    kept.set(m[1] as string, m[0]);
  }
  const notesAt = previous.indexOf(notesMarker);
  const notes =
    notesAt >= 0
      ? previous.slice(notesAt)
      : `${notesMarker}\n## Notes on misses\n\nWhere a target is missed: the figure, the profile and the cause.\n`;
  const body = order.map((id) => sections.get(id) ?? kept.get(id)).filter((s): s is string => s !== undefined);
  writeFileSync(file, `${header}\n\n${body.join("\n\n")}\n\n${notes.trimEnd()}\n`);
}
