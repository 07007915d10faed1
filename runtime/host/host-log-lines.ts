/**
 * The provider's stderr as go-plugin's host reads it: one entry per line, with the level the host
 * would log it at (JSON `@level`, a `[LEVEL]` prefix, or debug).
 */

/** One stderr line with the level the host gives it. */
export interface HostLogEntry {
  readonly level: "trace" | "debug" | "info" | "warn" | "error";
  readonly message: string;
  /** The other keys of a JSON line. */
  readonly fields: { readonly [key: string]: unknown };
  readonly raw: string;
}

const prefixes = {
  "[TRACE]": "trace",
  "[DEBUG]": "debug",
  "[INFO]": "info",
  "[WARN]": "warn",
  "[ERROR]": "error",
} as const;

/** Reads one stderr line the way go-plugin's host does. */
export function parseHostLogLine(raw: string): HostLogEntry {
  if (raw.startsWith("{")) {
    try {
      const value: unknown = JSON.parse(raw);
      if (value && typeof value === "object" && !Array.isArray(value)) {
        const {
          "@level": level,
          "@message": message,
          "@timestamp": _timestamp,
          ...fields
        } = value as Record<string, unknown>;
        if (level === "trace" || level === "debug" || level === "info" || level === "warn" || level === "error") {
          return { level, message: typeof message === "string" ? message : "", fields, raw };
        }
      }
    } catch {
      // not JSON after all
    }
  }
  for (const [prefix, level] of Object.entries(prefixes)) {
    if (raw.startsWith(prefix)) return { level, message: raw.slice(prefix.length).trimStart(), fields: {}, raw };
  }
  return { level: "debug", message: raw, fields: {}, raw };
}
