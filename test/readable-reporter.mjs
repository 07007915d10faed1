// A node:test reporter for people reading a CI log: one line per test file as it finishes, each
// failure with its message and where it happened, TODOs named without stack traces, and at the end
// the summary lines CI parses, exactly as the TAP reporter prints them (`# tests N`, `# pass N`, ...).
// test/run.mjs uses it for `npm test`; `npm test -- --test-reporter=tap` gives raw TAP instead.
import path from "node:path";
import { inspect } from "node:util";

const cwd = process.cwd();
const relative = (file) => (file ? path.relative(cwd, file) || file : "");
const seconds = (ms) => `${(ms / 1000).toFixed(1)}s`;

/**
 * True for the runner's test standing for a whole file: Node 20 names it by the file's absolute
 * path, Node 22 by its path relative to the working directory.
 */
const isFileTest = (data) =>
  data.file !== undefined && data.nesting === 0 && path.resolve(cwd, data.name) === data.file;

/** The error a test failed with, without the runner's wrapper. */
function unwrap(error) {
  return error?.code === "ERR_TEST_FAILURE" && error.cause !== undefined ? error.cause : error;
}

/** The failure as indented lines: the message in full (assertion diffs included), then the frames outside node's internals. */
function failureText(error) {
  const e = unwrap(error);
  if (!(e instanceof Error)) return `    ${inspect(e, { depth: 4 }).replace(/\n/g, "\n    ")}`;
  const stack = (e.stack ?? "").split("\n");
  const frames = stack
    .filter((l) => /^\s+at /.test(l) && !/\((node:[^)]*|<anonymous>)\)$|at node:|node_modules\//.test(l))
    .slice(0, 6);
  const head = `${e.name}: ${e.message}`;
  return [head, ...frames.map((f) => f.trim())].map((l) => `    ${l.replace(/\n/g, "\n    ")}`).join("\n");
}

/** Names of the enclosing suites, from the test:start events seen, by file and nesting. */
function trail(open, data) {
  const names = [];
  for (let n = 0; n < data.nesting; n++) {
    const name = open.get(`${data.file}\0${n}`);
    if (name !== undefined) names.push(name);
  }
  return [...names, data.name].join(" › ");
}

/** The line for a finished file: its counts and time, its failures in full, why anything was skipped. */
function fileReport(file, c) {
  const tally = [
    `${c.pass} passed`,
    c.fail ? `${c.fail} failed` : "",
    c.cancelled ? `${c.cancelled} cancelled` : "",
    c.skip ? `${c.skip} skipped` : "",
    c.skippedSuites ? `${c.skippedSuites} suite${c.skippedSuites > 1 ? "s" : ""} skipped` : "",
    c.todo ? `${c.todo} todo` : "",
  ]
    .filter(Boolean)
    .join(", ");
  const lines = [`${c.fail > 0 ? "FAIL" : "ok  "} ${relative(file)}  (${tally}; ${seconds(c.durationMs)})\n`];
  for (const f of c.failures) lines.push(`  ✖ ${f.name}\n${f.text}\n`);
  for (const [reason, names] of c.skipReasons)
    lines.push(`  ↷ skipped ${names.length > 1 ? `${names.length} (${names.join("; ")})` : names[0]}: ${reason}\n`);
  return lines.join("");
}

/**
 * When a file's line can be printed. The runner reports each file's tests in the order the files
 * were given: a file that finishes while an earlier one still runs sends its own completion at
 * once but its tests' events only when its turn comes. So a file is printed when it completes
 * after its tests reported (its turn had come), or, when it completed first, once the events of
 * another file's tests follow its own (or the run's summary begins).
 */
class FileLines {
  #pending = [];
  #lastReporting;

  /** A test of `file` reported: files that completed and whose tests came before are done. */
  testReported(file) {
    const done =
      this.#lastReporting !== undefined && this.#lastReporting !== file
        ? this.#take((f) => f === this.#lastReporting)
        : [];
    this.#lastReporting = file;
    return done;
  }

  /** `file` completed: done now when its tests have reported, else later. */
  completed(file, c) {
    if (c.reported > 0 && this.#lastReporting === file) return [file];
    this.#pending.push(file);
    return [];
  }

  /** Every file still waiting, in order: the run is over. */
  rest() {
    return this.#take(() => true);
  }

  #take(which) {
    const taken = this.#pending.filter(which);
    this.#pending = this.#pending.filter((f) => !taken.includes(f));
    return taken;
  }
}

export default async function* readableReporter(source) {
  const open = new Map();
  const perFile = new Map();
  const failures = [];
  const todos = [];
  const fileLines = new FileLines();
  let summaryStarted = false;
  const counts = (file) => {
    let c = perFile.get(file);
    if (!c)
      perFile.set(
        file,
        (c = {
          pass: 0,
          fail: 0,
          cancelled: 0,
          skip: 0,
          skippedSuites: 0,
          todo: 0,
          reported: 0,
          durationMs: 0,
          failures: [],
          skipReasons: new Map(),
        }),
      );
    return c;
  };
  const print = (files) => files.map((f) => fileReport(f, counts(f))).join("");

  for await (const { type, data } of source) {
    if ((type === "test:pass" || type === "test:fail") && !isFileTest(data)) {
      const done = print(fileLines.testReported(data.file));
      if (done) yield done;
      counts(data.file).reported++;
    }
    switch (type) {
      case "test:start":
        open.set(`${data.file}\0${data.nesting}`, data.name);
        break;
      case "test:pass":
      case "test:fail": {
        const isFile = isFileTest(data);
        const isSuite = data.details?.type === "suite";
        const c = counts(data.file);
        if (data.todo !== undefined) {
          c.todo++;
          todos.push(
            `${relative(data.file)}: ${trail(open, data)}${typeof data.todo === "string" && data.todo !== "" ? ` (${data.todo})` : ""}`,
          );
        } else if (data.skip !== undefined) {
          // The runner's "# skipped" counts tests; a skipped suite is named apart (its tests never report).
          if (isSuite) c.skippedSuites++;
          else c.skip++;
          const reason =
            typeof data.skip === "string" && data.skip !== "" ? data.skip.replace(/^skipped: /, "") : "no reason given";
          c.skipReasons.set(reason, [...(c.skipReasons.get(reason) ?? []), trail(open, data)]);
        } else if (type === "test:pass") {
          if (!isSuite && !isFile) c.pass++;
        } else if (data.details?.error?.failureType === "cancelledByParent") {
          // Cancelled because its suite failed (a hook, say): the suite's failure says why.
          c.cancelled++;
        } else if (data.details?.error?.failureType !== "subtestsFailed") {
          // A suite counts when its own hook failed; one that only holds failed tests does not.
          const failure = {
            file: relative(data.file),
            name: isFile ? "(the file itself)" : trail(open, data),
            text: failureText(data.details?.error),
          };
          c.fail++;
          c.failures.push(failure);
          failures.push(failure);
        }
        break;
      }
      case "test:complete":
        // The runner's test for a whole file completes once the file's process has ended.
        if (isFileTest(data)) {
          const c = counts(data.file);
          c.durationMs = data.details?.duration_ms ?? 0;
          const done = print(fileLines.completed(data.file, c));
          if (done) yield done;
        }
        break;
      case "test:stdout":
      case "test:stderr":
        yield data.message;
        break;
      case "test:diagnostic":
        // The run's summary arrives as diagnostics after every file: recap the failures first.
        if (!summaryStarted && data.file === undefined && /^tests \d+$/.test(data.message)) {
          summaryStarted = true;
          const rest = print(fileLines.rest());
          if (rest) yield rest;
          if (todos.length > 0) yield `\ntodo (${todos.length}):\n${todos.map((t) => `  ${t}\n`).join("")}`;
          if (failures.length > 0)
            yield `\nfailed (${failures.length}):\n${failures.map((f) => `  ${f.file}: ${f.name}\n`).join("")}`;
          yield "\n";
        }
        yield `# ${data.message}\n`;
        break;
      default:
        break;
    }
  }
}
