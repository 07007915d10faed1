/**
 * Figures of the kernel-side suites: harness-tool's value against the bare Node server and the Go
 * provider measured in the same run. The ratio column is against the contender the target names
 * (the bare server unless said otherwise); the note gives the other one and its ratio.
 */
import { compared, formatRatio, type Figure, type Verdict } from "./report.js";

/** A figure's three values (NaN where a contender did not run). */
export interface ThreeWay {
  readonly ours: number;
  readonly bare: number;
  readonly go: number;
}

/** How a three-way figure is judged. */
export interface ThreeWayTarget {
  /** The contender the ratio is taken against (default bare). */
  readonly against?: "bare" | "go";
  /** ours / against at most this (lower is better). */
  readonly maxRatio?: number;
  /** ours / against at least this (higher is better). */
  readonly minRatio?: number;
  /** ours at most this, in the figure's unit, shown as `label`. */
  readonly maxValue?: { readonly value: number; readonly label: string };
}

const labels = { bare: "bare grpc-js", go: "Go" } as const;

/** One row: harness-tool against both contenders. */
export function threeWay(
  name: string,
  v: ThreeWay,
  format: (n: number) => string,
  target: ThreeWayTarget = {},
  extra?: string,
): Figure {
  const against = target.against ?? "bare";
  const other = against === "bare" ? "go" : "bare";
  const ratio = v.ours / v[against];
  const otherRatio = v.ours / v[other];
  const targets: string[] = [];
  // A contender without samples failed (its error is in the suite's failures): so does the figure.
  let verdict: Verdict = [v.ours, v.bare, v.go].every(Number.isFinite) ? "info" : "FAIL";
  const judge = (ok: boolean) => {
    if (verdict === "FAIL") return;
    verdict = verdict === "miss" || !ok ? "miss" : "pass";
  };
  if (target.maxRatio !== undefined) {
    targets.push(`≤ ${target.maxRatio}× ${labels[against]}`);
    judge(Number.isFinite(ratio) && ratio <= target.maxRatio);
  }
  if (target.minRatio !== undefined) {
    targets.push(`≥ ${target.minRatio}× ${labels[against]}`);
    judge(Number.isFinite(ratio) && ratio >= target.minRatio);
  }
  if (target.maxValue !== undefined) {
    targets.push(`≤ ${target.maxValue.label}`);
    judge(v.ours <= target.maxValue.value);
  }
  const note = [
    `${labels[other]} ${format(v[other])} (${formatRatio(otherRatio)})`,
    ...(extra !== undefined ? [extra] : []),
  ].join("; ");
  return {
    name,
    value: format(v.ours),
    baseline: `${labels[against]} ${format(v[against])}`,
    ...(Number.isFinite(ratio) ? { ratio } : {}),
    ...(targets.length > 0 ? { target: targets.join(", ") } : {}),
    verdict,
    note,
  };
}

/** Per-contender samples of the suites, keyed by contender id. */
export class Samples {
  readonly #values = new Map<string, Map<string, number[]>>();

  add(contender: string, figure: string, ...values: readonly number[]): void {
    let byFigure = this.#values.get(contender);
    if (!byFigure) this.#values.set(contender, (byFigure = new Map()));
    byFigure.set(figure, [...(byFigure.get(figure) ?? []), ...values]);
  }

  get(contender: string, figure: string): readonly number[] {
    return this.#values.get(contender)?.get(figure) ?? [];
  }

  /** The three-way values of a figure, each reduced by `reduce` (a median, a percentile). */
  three(figure: string, reduce: (values: readonly number[]) => number): ThreeWay {
    return {
      ours: reduce(this.get("harness-tool", figure)),
      bare: reduce(this.get("bare", figure)),
      go: reduce(this.get("go", figure)),
    };
  }
}

/** Rows for the contenders beyond the core three (transport contenders, supervisor off) against the bare server. */
export function otherRows(
  contenders: readonly { readonly id: string; readonly label: string }[],
  name: string,
  samples: Samples,
  figure: string,
  reduce: (values: readonly number[]) => number,
  format: (n: number) => string,
): Figure[] {
  return contenders
    .filter((c) => c.id !== "harness-tool" && c.id !== "bare" && c.id !== "go" && c.id !== "harness-tool-base")
    .filter((c) => samples.get(c.id, figure).length > 0)
    .map((c) =>
      compared(`${c.label}: ${name}`, reduce(samples.get(c.id, figure)), format, {
        label: "bare grpc-js",
        value: reduce(samples.get("bare", figure)),
      }),
    );
}

/**
 * The before/after row of a figure when the base commit's harness-tool ran
 * (HARNESS_TOOL_BENCH_BASE): this checkout against it; none otherwise.
 */
export function beforeAfter(
  name: string,
  samples: Samples,
  figure: string,
  reduce: (values: readonly number[]) => number,
  format: (n: number) => string,
): Figure[] {
  const before = samples.get("harness-tool-base", figure);
  if (before.length === 0) return [];
  return [
    compared(`${name}: after (this checkout) vs before`, reduce(samples.get("harness-tool", figure)), format, {
      label: `before (${process.env["HARNESS_TOOL_BENCH_BASE"] ?? "base"})`,
      value: reduce(before),
    }),
  ];
}
