/**
 * Generation-time diagnostics: each names the proto source position, the service and rpc (or
 * message) it is about, what is wrong and how to fix it, in the one format the issue fixes:
 * `path/to/file.proto:LINE:COL: Service.Rpc: what is wrong (how to fix it)`.
 */

/** Where in a proto file, 1-based. */
export interface SourcePosition {
  readonly file: string;
  readonly line: number;
  readonly column: number;
}

/** One problem found while resolving the request into the model. */
export interface Diagnostic extends SourcePosition {
  /** Errors fail generation (no files); warnings go to stderr and do not. */
  readonly severity: "error" | "warning";
  /** `Service.Rpc`, `Service`, or a message's full name when no tool is involved. */
  readonly scope: string;
  readonly message: string;
  readonly fix: string;
  /** The invariant rule id, when the problem is one of the runtime's ToolSchema invariants. */
  readonly rule?: string;
}

/** The diagnostic as one line; warnings say so after the scope. */
export function formatDiagnostic(d: Diagnostic): string {
  const level = d.severity === "warning" ? "warning: " : "";
  return `${d.file}:${d.line}:${d.column}: ${d.scope}: ${level}${d.message} (${d.fix})`;
}

/** Sorts by file, line and column, keeping the order of equal positions; drops exact duplicates. */
export function sortDiagnostics(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  const seen = new Set<string>();
  const unique: Diagnostic[] = [];
  for (const d of diagnostics) {
    const key = `${d.severity}\u0000${formatDiagnostic(d)}`;
    if (seen.has(key)) continue;
    seen.add(key);
    unique.push(d);
  }
  return unique
    .map((d, index) => ({ d, index }))
    .sort(
      (a, b) => a.d.file.localeCompare(b.d.file) || a.d.line - b.d.line || a.d.column - b.d.column || a.index - b.index,
    )
    .map(({ d }) => d);
}

/** Collects diagnostics while the model is built. */
export class DiagnosticSink {
  readonly all: Diagnostic[] = [];

  /** Records an error at `at`. */
  error(at: SourcePosition, scope: string, message: string, fix: string, rule?: string): void {
    this.all.push({ ...at, severity: "error", scope, message, fix, ...(rule ? { rule } : {}) });
  }

  /** Records a warning at `at`. */
  warning(at: SourcePosition, scope: string, message: string, fix: string, rule?: string): void {
    this.all.push({ ...at, severity: "warning", scope, message, fix, ...(rule ? { rule } : {}) });
  }

  /** True when at least one error was recorded. */
  get hasErrors(): boolean {
    return this.all.some((d) => d.severity === "error");
  }
}
