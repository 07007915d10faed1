/**
 * The provider's stderr shown to a person, a line at a time, the way the kernel's log (hclog)
 * shows it: `[ERROR] provider: message: key=value`. A harness-tool provider writes JSON log lines
 * (a handler's console.error becomes one at level error); other lines (a crash's stack, another
 * language's output) carry no level and are shown as they are.
 */
import type { HostLogEntry } from "harness-tool/host";

/** Which of the provider's stderr lines a command shows. */
export type ProviderLogShown = "none" | "default" | "all";

/** True when the line came without a level of its own (go-plugin files it under debug). */
function unlabelled(entry: HostLogEntry): boolean {
  return entry.raw === entry.message && Object.keys(entry.fields).length === 0;
}

/**
 * Whether `entry` is shown: `default` leaves out the debug and trace lines a provider labels so
 * (the runtime's own "provider shutting down", a handler's console.debug) and keeps the rest.
 */
export function providerLogShows(shown: ProviderLogShown, entry: HostLogEntry): boolean {
  if (shown === "none") return false;
  if (shown === "all" || unlabelled(entry)) return true;
  return entry.level !== "debug" && entry.level !== "trace";
}

function fieldText(value: unknown): string {
  return typeof value === "string" && !/\s/.test(value) && value !== "" ? value : JSON.stringify(value);
}

/** One line for the terminal (without its newline). */
export function providerLogLine(entry: HostLogEntry): string {
  if (unlabelled(entry)) return `provider: ${entry.raw}`;
  const fields = Object.entries(entry.fields).map(([key, value]) => `${key}=${fieldText(value)}`);
  const level = `[${entry.level.toUpperCase()}]`.padEnd(7);
  return `${level} provider: ${entry.message}${fields.length > 0 ? `: ${fields.join(" ")}` : ""}`;
}

/** A handler's ctx.log entry as the kernel receives it over the Log callback (LogEntry, its level by name). */
export interface KernelLogEntry {
  /** `trace`, `debug`, `info`, `warn`, `error` or `fatal`. */
  readonly level: string;
  /** `<provider>.<tool>` for a tool's handler, `<provider>.hook.<point>` for a hook's. */
  readonly logger: string;
  readonly message: string;
  readonly fields: { readonly [key: string]: unknown };
}

/** Whether a ctx.log entry is shown: as the provider's stderr lines, `default` leaves out debug and trace. */
export function kernelLogShows(shown: ProviderLogShown, level: string): boolean {
  if (shown === "none") return false;
  return shown === "all" || (level !== "debug" && level !== "trace");
}

/** One ctx.log line for the terminal (without its newline): `[INFO]  notes.read_note: message: key=value`. */
export function kernelLogLine(entry: KernelLogEntry): string {
  const fields = Object.entries(entry.fields).map(([key, value]) => `${key}=${fieldText(value)}`);
  const level = `[${entry.level.toUpperCase()}]`.padEnd(7);
  return `${level} ${entry.logger || "provider"}: ${entry.message}${fields.length > 0 ? `: ${fields.join(" ")}` : ""}`;
}
