/**
 * One wording per fault, whichever command meets it: a file that is missing or unreadable, text
 * that is not JSON or not a JSON object. A command names the thing (`--config dev.json`, `--args`,
 * `src/main.ts`) and takes the rest of the sentence from here, so `invoke`, `check`, `inspect`,
 * `sync`, `bundle` and the commands to come say the same fault the same way.
 */

/** `<what> does not exist`: a file or folder the command line named is not there. */
export function missingFileText(what: string): string {
  return `${what} does not exist`;
}

/** Why `what` could not be read, from the errno of the failed read (a missing file as missingFileText). */
export function unreadableFileText(what: string, error: unknown): string {
  switch ((error as NodeJS.ErrnoException).code) {
    case "ENOENT":
      return missingFileText(what);
    case "EISDIR":
      return `${what} is a folder, not a file`;
    case "EACCES":
    case "EPERM":
      return `${what} cannot be read: permission denied`;
    default:
      return `${what} cannot be read: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/**
 * `<what> is not JSON: <the parser's reason>`. For one line of text, Node 22's "(line 1 column N)"
 * after "at position N" says nothing more and is left out.
 */
export function notJsonText(what: string, error: unknown, text?: string): string {
  const reason = error instanceof Error ? error.message : String(error);
  const oneLine = text !== undefined && !text.includes("\n");
  return `${what} is not JSON: ${oneLine ? reason.replace(/ \(line 1 column \d+\)$/, "") : reason}`;
}

/** `<what> must be a JSON object`, with an example of one when given. */
export function notJsonObjectText(what: string, example?: string): string {
  return `${what} must be a JSON object${example === undefined ? "" : `, e.g. ${example}`}`;
}

/** The JSON object in `text` (read from `what`); throws `fail(message)` with the wording above otherwise. */
export function parseJsonObject(
  text: string,
  what: string,
  fail: (message: string) => Error,
  example?: string,
): { [key: string]: unknown } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw fail(notJsonText(what, e, text));
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw fail(notJsonObjectText(what, example));
  return value as { [key: string]: unknown };
}

/** Edits (insert, delete, replace) between `a` and `b`. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(
        (previous[j] ?? 0) + 1,
        (current[j - 1] ?? 0) + 1,
        (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/**
 * The candidate `given` was most likely meant to be (for "did you mean …?"): within two edits and
 * less than half its length away, or one that starts with it; undefined when none is that near.
 */
export function nearestName(given: string, candidates: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const name of candidates) {
    const distance = name.startsWith(given) && given.length >= 2 ? 0 : editDistance(given, name);
    if (distance <= 2 && distance * 2 < given.length && (!best || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}
