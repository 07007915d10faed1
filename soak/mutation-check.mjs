#!/usr/bin/env node
// Checks that each reliability scenario fails when the behaviour it guards is removed: for every
// mutation below, a copy of the working tree (node_modules linked, nothing in this checkout
// touched) gets one edit, and the scenario's tests run against it; the mutation must make them
// fail. Prints one line per mutation and exits 1 if any mutation survived.
//
//   node soak/mutation-check.mjs            # all mutations
//   node soak/mutation-check.mjs timeout    # those whose name contains "timeout"
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

/** name, file, the exact text to replace, its replacement, the tests that must fail (with a name pattern). */
const mutations = [
  [
    "output validation removed",
    "runtime/service/calls/invoke-in-flight.ts",
    "if (violations.length > 0 || !isPlainObject(payload)) {",
    "if (false) {",
    ["test/runtime/reliability/faults.test.ts"],
    "invalid output",
  ],
  [
    "input validation removed",
    "runtime/service/calls/invoke-in-flight.ts",
    "if (violations.length > 0) {\n        // wire-contract §5",
    "if (false) {\n        // wire-contract §5",
    ["test/runtime/reliability/fuzz.test.ts"],
    "INVALID_ARGUMENTS",
  ],
  [
    "default timeout not enforced",
    "runtime/service/calls/invoke-in-flight.ts",
    "if (timeoutMs !== undefined) timer = setTimeout(",
    "if (false) timer = setTimeout(",
    ["test/runtime/reliability/faults.test.ts"],
    "timeout",
  ],
  // Through the wire the cancelled stream is gone before a late terminal could reach the host, so
  // the in-process load scenario (which cancels every 14th call) is the one that sees it.
  [
    "a terminal event after a cancel",
    "runtime/service/calls/invoke-in-flight.ts",
    'if (reason === "cancelled") {',
    "if (false) {",
    ["test/runtime/reliability/load.test.ts"],
    "in-process",
  ],
  [
    "terminal events duplicated",
    "runtime/service/calls/invoke-in-flight.ts",
    "this.#send({ case: kind, value } as EventInit);",
    "this.#send({ case: kind, value } as EventInit);\n    if (Math.random() < 0.001) this.#send({ case: kind, value } as EventInit);",
    ["test/runtime/reliability/load.test.ts"],
    "in-process",
  ],
  [
    "terminal events lost",
    "runtime/service/calls/invoke-in-flight.ts",
    "if (this.#closed) return;\n    this.#send({ case: kind, value } as EventInit);",
    "if (this.#closed) return;\n    if (Math.random() < 0.001) return this.#close();\n    this.#send({ case: kind, value } as EventInit);",
    ["test/runtime/reliability/load.test.ts"],
    "in-process",
  ],
  [
    "no SIGKILL after SIGTERM",
    "runtime/service/process/spawn-child.ts",
    'killTimer = setTimeout(() => signalGroup(child, "SIGKILL"), hooks.killGraceMs);',
    "killTimer = undefined;",
    ["test/runtime/reliability/faults.test.ts"],
    "SIGTERM",
  ],
  [
    "the broker stream ending ignored",
    "runtime/transport/go-plugin-services.ts",
    'void life.stop("broker-closed");',
    "",
    ["test/runtime/reliability/faults.test.ts"],
    "broker stream ending",
  ],
  [
    "host death unnoticed (broker and parent pid)",
    "runtime/transport/go-plugin-services.ts",
    'void life.stop("broker-closed");',
    "",
    ["test/runtime/reliability/faults.test.ts"],
    "SIGKILLed",
    ["runtime/transport/serve-go-plugin.ts", 'if (process.ppid !== parentPid) void life.stop("parent-gone");', ""],
  ],
  // Closing the gRPC server unlinks the socket too (libuv), so both removals go.
  [
    "socket file left behind",
    "runtime/transport/listen.ts",
    "const cleanup = () => rmSync(socketPath, { force: true });",
    "const cleanup = () => {};",
    ["test/runtime/reliability/faults.test.ts"],
    "SIGKILLed",
    ["runtime/transport/provider-life.ts", "    server.forceShutdown();\n    return this.finish(0);", "    return this.finish(0);"],
  ],
  [
    "JSON-escaped secrets not redacted",
    "runtime/redaction/redact-secrets.ts",
    "  out.add(JSON.stringify(secret).slice(1, -1));\n",
    "",
    ["test/runtime/reliability/secrets.test.ts"],
    "",
  ],
  [
    "split secrets not held back",
    "runtime/redaction/redact-secrets.ts",
    "let cut = pendingStart(buf, byteNeedles);",
    "let cut = buf.length;",
    ["test/runtime/reliability/secrets.test.ts"],
    "",
  ],
  // One per exit (runtime/service/calls/secret-exits.ts, docs/runtime.md#exits): the redaction at that
  // exit removed, and the exit walk must see the secret leave.
  [
    "Invoke exit: events sent unredacted",
    "runtime/service/calls/secret-exits.ts",
    "this.#sink.send(redactor.message(InvokeResponseSchema, response))",
    "this.#sink.send(response)",
    ["test/runtime/service/exit-walk.test.ts"],
    "no exit",
  ],
  [
    "Invoke exit: output chunks sent unredacted",
    "runtime/service/calls/secret-exits.ts",
    "if (open?.redactor === redactor) return this.#sendOutput(stream, open.tail.push(data));",
    "return this.#sendOutput(stream, data);",
    ["test/runtime/service/exit-walk.test.ts"],
    "no exit",
  ],
  [
    "Invoke exit: held-back output sent after the terminal event",
    "runtime/service/calls/secret-exits.ts",
    'if (event?.case === "result" || event?.case === "error") wait = this.#flush();',
    "",
    // Only a tail that could begin a secret is held: the error paths end a stream in one.
    ["test/runtime/interop/error-paths.test.ts"],
    "secret split",
  ],
  [
    "unary exit: responses sent unredacted",
    "runtime/service/calls/secret-exits.ts",
    "return this.#redactor.message(schema, message);",
    "return message;",
    ["test/runtime/service/exit-walk.test.ts"],
    "no exit",
  ],
  [
    "unary exit: status messages sent unredacted",
    "runtime/service/calls/secret-exits.ts",
    "new RpcStatusError(status.code, redactor.string(status.message),",
    "new RpcStatusError(status.code, status.message,",
    ["test/runtime/service/exit-walk.test.ts"],
    "no exit",
  ],
  [
    "unary exit: grpc-status-details-bin sent unredacted",
    "runtime/service/calls/secret-exits.ts",
    "status.toolError && redactor.message(ToolErrorSchema, status.toolError)",
    "status.toolError",
    ["test/runtime/service/exit-walk.test.ts"],
    "no exit",
  ],
  [
    "stderr exit: service lines unredacted",
    "runtime/service/calls/secret-exits.ts",
    "return (line) => write(this.#redactor.string(line));",
    "return write;",
    ["test/runtime/service/exit-walk.test.ts"],
    "no exit",
  ],
  [
    "kernel exit: callbacks unredacted",
    "runtime/service/calls/secret-exits.ts",
    "wrapped = { inner, outer: this.#kernelExit(inner) };",
    "wrapped = { inner, outer: inner };",
    ["test/runtime/service/exit-walk.test.ts"],
    "no exit",
  ],
  [
    "host stderr exit: no filter in the served process",
    "runtime/serve.ts",
    "filterStderr(service.redactText);",
    "",
    ["test/runtime/transport/exit-walk-wire.test.ts"],
    "",
  ],
  [
    "key_fields gate open",
    "runtime/service/calls/concurrency-gate.ts",
    "return { exclusive: false, keys: [key], label };",
    "return { exclusive: false, keys: [], label };",
    ["test/runtime/reliability/load.test.ts"],
    "in-process",
  ],
  [
    "plugin throws on a oneof",
    "plugin/model/message-shapes.ts",
    "if (field.oneof !== undefined) {\n",
    'if (field.oneof !== undefined) {\n      throw new TypeError("cannot read oneof");\n',
    ["test/runtime/reliability/fuzz.test.ts"],
    "protos",
  ],
  [
    "generated validator drops a required check",
    "examples/search/src/gen/examples/search/v1/search_tool_schemas.ts",
    'if (record["pattern"] === undefined) out.push({ path: `${path}/pattern`, message: "is required" });\n  for (const [name, field] of Object.entries(record)) {\n    switch (name) {\n      case "pattern":\n        if (field !== undefined && typeof field !== "string") out.push({ path: `${path}/pattern`, message: `must be a string, not ${typeOfJson(field)}` });\n        break;\n      case "path":',
    'for (const [name, field] of Object.entries(record)) {\n    switch (name) {\n      case "pattern":\n        if (field !== undefined && typeof field !== "string") out.push({ path: `${path}/pattern`, message: `must be a string, not ${typeOfJson(field)}` });\n        break;\n      case "path":',
    ["test/runtime/reliability/fuzz.test.ts"],
    "glob",
  ],
  // The supervisor (docs/runtime.md#the-supervisor).
  [
    "supervisor: stderr passed unfiltered",
    "runtime/supervisor/supervise-provider.ts",
    "writeAll(2, stderrFilter.push(chunk))",
    "writeAll(2, chunk)",
    ["test/runtime/transport/supervisor-wire.test.ts"],
    "write-sync-2",
  ],
  [
    "supervisor: a secret split across writes not held back",
    "runtime/supervisor/secret-stream-filter.ts",
    "const keep = pendingPrefix(redacted, forms);",
    "const keep = 0;",
    ["test/runtime/transport/supervisor-wire.test.ts"],
    "split-writes",
  ],
  [
    "supervisor: stdout after the handshake passed to fd 1",
    "runtime/supervisor/supervise-provider.ts",
    "if (handshake === undefined) return stdoutRest(stdoutFilter.push(chunk));",
    "if (handshake === undefined) return void writeAll(1, chunk);",
    ["test/runtime/transport/supervisor-wire.test.ts"],
    "write-sync-1",
  ],
  [
    "supervisor: the secrets never sent over the channel",
    "runtime/supervisor/supervised-service.ts",
    "channel?.learnSecrets(collectSecrets(options.attributes, request.config ?? {}));",
    "",
    ["test/runtime/transport/supervisor-wire.test.ts"],
    "raw-debug",
  ],
  [
    "supervisor: never started",
    "runtime/supervisor/supervision-wanted.ts",
    "return env[kernelHandshake.cookieKey] === kernelHandshake.cookieValue;",
    "return false;",
    ["test/runtime/transport/supervisor-wire.test.ts"],
    "inherited-stderr-child",
  ],
  [
    "supervisor: the watchdog not told of the tools' process groups",
    "runtime/service/process/spawn-child.ts",
    "groupWatch?.watch(child.pid);",
    "",
    ["test/runtime/transport/supervisor-wire.test.ts"],
    "grandchild",
  ],
  [
    "supervisor: the watchdog not told of the provider",
    "runtime/supervisor/supervise-provider.ts",
    "if (child.pid !== undefined) watchdog?.watchProcess(child.pid);",
    "",
    ["test/runtime/transport/supervisor-wire.test.ts"],
    "stuck",
  ],
  [
    "supervisor: no warning for children ctx.spawn did not start",
    "runtime/supervisor/supervised-service.ts",
    "for (const stray of strayChildren(known)) {",
    "for (const stray of strayChildren(known).slice(0, 0)) {",
    ["test/runtime/transport/supervisor-wire.test.ts"],
    "raw child_process",
  ],
  // The span exit (docs/runtime.md#what-the-span-exit-redacts).
  [
    "span exit: exported spans unredacted",
    "runtime/telemetry/redacting-span-exporter.ts",
    "redacted = spans.map((span) => redactSpan(span, text as RedactText));",
    "redacted = spans;",
    ["test/runtime/telemetry/span-exit.test.ts"],
    "",
  ],
  [
    "span exit: serve() never hands the exporter the redaction",
    "runtime/serve.ts",
    "traceExport?.redactWith(service.redactText);",
    "",
    ["test/runtime/telemetry/span-exit.test.ts"],
    "",
  ],
  // The transport (docs/transport.md#a-burst-of-stream-resets, #what-the-provider-does-in-order).
  [
    "host connections not retired before nghttp2's stream-reset limit",
    "runtime/transport/stream-reset-limit.ts",
    "if (budget.remaining > retireAtRemainingResets) return;",
    "return;",
    ["test/runtime/interop/reset-burst.test.ts"],
    "Invokes cancelled",
  ],
  [
    "a second broker stream taken as the host's",
    "runtime/transport/go-plugin-services.ts",
    "if (opened) {",
    "if (false) {",
    ["test/runtime/transport/broker-stream.test.ts"],
    "garbage",
  ],
  // Errors: held tails, bounds, deep arguments (docs/runtime.md#bounded-errors, #deep-arguments).
  [
    "issue 22: exit_status flushes the held tail of a stream",
    "runtime/service/calls/secret-exits.ts",
    'if (event?.case === "result" || event?.case === "error") wait = this.#flush();',
    'if (event?.case === "result" || event?.case === "error" || event?.case === "exitStatus") wait = this.#flush();',
    ["test/runtime/interop/error-paths.test.ts"],
    "secret split",
  ],
  [
    "issue 22: every violation listed",
    "runtime/errors/input-error-bounds.ts",
    "const listed = violations.slice(0, maxReportedViolations)",
    "const listed = violations.slice()",
    ["test/runtime/interop/error-paths.test.ts"],
    "bounded",
  ],
  [
    "issue 22: input quoted unclipped",
    "runtime/errors/input-error-bounds.ts",
    "if (text.length <= max) return text;",
    "return text;",
    ["test/runtime/interop/error-paths.test.ts"],
    "bounded",
  ],
  [
    "issue 22: error message unbounded",
    "runtime/errors/input-error-bounds.ts",
    "return clipText(message, maxErrorMessageChars);",
    "return message;",
    ["test/runtime/service/input-error-bounds.test.ts"],
    "worst case",
  ],
  [
    "issue 22: deep arguments not left out",
    "runtime/service/calls/argument-depth.ts",
    "if (depth !== undefined && depth > maxArgumentDepth) {",
    "if (false) {",
    ["test/runtime/interop/error-paths.test.ts"],
    "nested",
  ],
  [
    "issue 22: requests decoded with protobuf-es's default recursion limit",
    "runtime/service/calls/argument-depth.ts",
    "const message = fromBinary(desc, kept, { recursionLimit });",
    "const message = fromBinary(desc, kept);",
    ["test/runtime/interop/error-paths.test.ts"],
    "nested",
  ],
  [
    "issue 22: the transport decodes ToolService requests without decodeRequest",
    "runtime/transport/serve-go-plugin.ts",
    "grpcServiceDefinition(ToolService, decodeRequest),",
    "grpcServiceDefinition(ToolService),",
    ["test/runtime/interop/error-paths.test.ts"],
    "nested",
  ],
  [
    "issue 22: Invoke runs with deep arguments left out",
    "runtime/service/calls/invoke-in-flight.ts",
    "const deep = tooDeep(this.#call);\n      if (deep) {",
    "const deep = tooDeep(this.#call);\n      if (false) {",
    ["test/runtime/interop/error-paths.test.ts"],
    "nested",
  ],
  [
    "issue 22: Preview runs with deep arguments left out",
    "runtime/service/calls/preview-call.ts",
    "const deep = tooDeep(call);\n  if (deep) {",
    "const deep = tooDeep(call);\n  if (false) {",
    ["test/runtime/interop/error-paths.test.ts"],
    "nested",
  ],
  [
    "issue 22: Configure accepts a config with deep values left out",
    "runtime/service/calls/tool-service.ts",
    "const deep = tooDeep(request);\n  if (deep) {",
    "const deep = tooDeep(request);\n  if (false) {",
    ["test/runtime/interop/error-paths.test.ts"],
    "nested",
  ],
];

/**
 * The copy's node_modules: each package linked to this checkout's, except the workspace packages
 * (`harness-tool` -> ../runtime, `@harness-tool/*`: relative links), which must resolve to the
 * copy's own sources, or a provider importing `harness-tool` would run the unmutated runtime.
 */
function linkNodeModules(from, to) {
  mkdirSync(to);
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const source = path.join(from, entry.name);
    const target = path.join(to, entry.name);
    const link = entry.isSymbolicLink() ? readlinkSync(source) : undefined;
    if (link !== undefined && !path.isAbsolute(link)) symlinkSync(link, target);
    else if (entry.isDirectory() && entry.name.startsWith("@")) linkNodeModules(source, target);
    else symlinkSync(source, target);
  }
}

const filter = process.argv[2] ?? "";
const copy = mkdtempSync(path.join(os.tmpdir(), "harness-tool-mutants-"));
cpSync(root, copy, { recursive: true, filter: (src) => !/[/\\](node_modules|\.git)$/.test(src) });
linkNodeModules(path.join(root, "node_modules"), path.join(copy, "node_modules"));
let survived = 0;
try {
  for (const [name, file, from, to, tests, pattern, extra] of mutations) {
    if (!name.includes(filter)) continue;
    const edits = [[file, from, to], ...(extra ? [extra] : [])];
    const originals = new Map();
    for (const [f, a, b] of edits) {
      const target = path.join(copy, f);
      const text = originals.get(target) ?? readFileSync(target, "utf8");
      originals.set(target, text);
      const current = readFileSync(target, "utf8");
      if (!current.includes(a)) throw new Error(`${name}: ${f} no longer contains the text to mutate; update soak/mutation-check.mjs`);
      writeFileSync(target, current.replace(a, b));
    }
    const started = Date.now();
    const run = spawnSync(
      process.execPath,
      [path.join(copy, "node_modules/tsx/dist/cli.mjs"), "--test", "--test-timeout=30000", ...(pattern ? [`--test-name-pattern=${pattern}`] : []), ...tests],
      {
        cwd: copy,
        env: { ...process.env, NODE_OPTIONS: [process.env.NODE_OPTIONS, "--conditions=harness-tool-source"].filter(Boolean).join(" ") },
        encoding: "utf8",
      },
    );
    // A test cut off by --test-timeout (a call that never ends) counts as failed too.
    const failed = /^# (fail|cancelled) [1-9]/m.test(run.stdout);
    if (!failed) survived++;
    console.log(
      `${failed ? "killed  " : "SURVIVED"} ${name} (${tests.join(" ")}${pattern ? ` /${pattern}/` : ""}, ${((Date.now() - started) / 1000).toFixed(0)} s)`,
    );
    for (const [target, text] of originals) writeFileSync(target, text);
  }
} finally {
  rmSync(copy, { recursive: true, force: true });
}
process.exit(survived > 0 ? 1 : 0);
