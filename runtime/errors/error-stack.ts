/**
 * A thrown value's stack, read so that nothing can make the reading throw: a getter that throws,
 * or an `Error.prepareStackTrace` a dependency broke (the `bindings` loader bundled into an ES
 * module reads `__filename` there, and from then on every stack read in the process throws).
 * Without protobuf or anything else heavy: the start-failure guard, which the executables'
 * early supervision arms, uses it too.
 */

/** How many lines of a stack the kernel's log gets. */
const maxStackLines = 12;

/** `read()`, or `fallback` when it throws. */
export function readSafely<T>(read: () => T, fallback: T): T {
  try {
    return read();
  } catch {
    return fallback;
  }
}

/** What String() makes of a value, or its type when even that throws. */
export function rendered(value: unknown): string {
  return readSafely(() => String(value), `[${typeof value} that cannot be rendered]`);
}

/**
 * A thrown value's stack for the kernel's log (its first lines), its name and message when the
 * stack cannot be read, never a throw. Local paths stay: the log is the author's, not the model's.
 */
export function stackOf(thrown: unknown): string {
  if (!(thrown instanceof Error)) return rendered(thrown);
  const threw = Symbol("threw");
  const stack: unknown = readSafely<unknown>(() => thrown.stack, threw);
  if (typeof stack === "string" && stack !== "") return stack.split("\n").slice(0, maxStackLines).join("\n");
  const name = readSafely(() => thrown.name, "Error");
  const message = readSafely(() => thrown.message, "");
  const why =
    stack === threw
      ? ": reading it threw, as every stack does once a dependency replaced Error.prepareStackTrace with a function that throws (a loader such as `bindings` bundled into an ES module: keep that package external)"
      : "";
  return `${rendered(name)}: ${rendered(message)} (no stack${why})`;
}
