/** A one-line progress bar from ToolEvent.Progress.fraction_complete. */

/** `[#####-----]  50% message` for a fraction in [0, 1]; an unknown fraction shows the message only. */
export function progressLine(message: string, fraction: number | undefined, width = 24): string {
  if (fraction === undefined || !Number.isFinite(fraction)) return `[${" ".repeat(width)}]      ${message}`;
  const f = Math.min(1, Math.max(0, fraction));
  const filled = Math.round(f * width);
  return `[${"#".repeat(filled)}${"-".repeat(width - filled)}] ${String(Math.round(f * 100)).padStart(3)}% ${message}`;
}
