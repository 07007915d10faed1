// The configure hook (docs/runtime.md#the-configure-hook): it runs at Configure on the decoded
// config, before any Invoke sees it; configError names the attribute as the decoder's violations
// do; another ToolError keeps its category; anything else thrown is `unknown`, its stack logged and
// never sent; a secret in its message is redacted; it is bounded by the call's deadline (or the
// service's bound when the host sets none) and its signal aborts there; a refused Configure keeps
// the configuration in force before it.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { create, type JsonObject } from "@bufbuild/protobuf";
import { ConfigureRequestSchema, ToolErrorCategory } from "../../../generated/pluggableharness/tool/v1/tool_pb.js";
import { GrpcCode, RpcStatusError } from "../../../runtime/errors/rpc-status-error.js";
import { type ConfigureHook, configError, defineConfig, ToolError } from "../../../runtime/index.js";
import { createToolService } from "../../../runtime/service/calls/index.js";
import { echo, providerWith } from "./support/sample-tools.js";
import { invokeRequest, onlyTerminal, recordingSink } from "./support/recording-sink.js";

type NotesConfig = { db_path: string; token?: string };
const config = defineConfig<NotesConfig>([
  { name: "db_path", type: "string", required: true },
  { name: "token", type: "string", sensitive: true },
]);

function service(
  hook: ConfigureHook<NotesConfig>,
  options: { stderr?: (line: string) => void; configureHookTimeoutMs?: number } = {},
) {
  return createToolService(
    providerWith(echo, async (_input, ctx) => ({ text: ctx.config.db_path }), {
      config,
      configure: hook as ConfigureHook<unknown>,
    }),
    {
      stderr: options.stderr ?? (() => {}),
      ...(options.configureHookTimeoutMs !== undefined
        ? { configureHookTimeoutMs: options.configureHookTimeoutMs }
        : {}),
    },
  );
}

function configure(s: ReturnType<typeof service>, value: JsonObject, deadline?: Date) {
  return s.configure(create(ConfigureRequestSchema, { config: value }), undefined, deadline);
}

async function rejection(promise: Promise<unknown>): Promise<RpcStatusError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof RpcStatusError, `expected an RpcStatusError, got ${String(error)}`);
    return error;
  }
  assert.fail("expected a rejection");
}

async function invokedWith(s: ReturnType<typeof service>): Promise<string> {
  const rec = recordingSink();
  await s.invoke(invokeRequest("echo", { text: "a" }), rec.sink);
  const terminal = onlyTerminal(rec);
  assert.equal(terminal.case, "result", JSON.stringify(terminal));
  return String((terminal.value as { payload?: { [key: string]: unknown } }).payload?.["text"]);
}

describe("the configure hook", () => {
  it("gets the decoded config once the decoder accepted it, and its acceptance puts the config in force", async () => {
    const seen: NotesConfig[] = [];
    const s = service((c) => {
      seen.push(c);
    });
    await rejection(configure(s, {}));
    assert.deepEqual(seen, [], "a config the decoder refuses never reaches the hook");
    await configure(s, { db_path: "notes.db" });
    assert.deepEqual(seen, [{ db_path: "notes.db" }]);
    assert.equal(await invokedWith(s), "notes.db");
  });

  it("configError names the attribute: INVALID_ARGUMENT, invalid_arguments, details.violations at /db_path", async () => {
    const s = service(async (c) => {
      if (c.db_path === "") throw configError("db_path", "must name the notes database file");
    });
    const error = await rejection(configure(s, { db_path: "" }));
    assert.equal(error.code, GrpcCode.INVALID_ARGUMENT);
    assert.equal(error.toolError?.category, ToolErrorCategory.INVALID_ARGUMENTS);
    assert.deepEqual(error.toolError?.details, {
      violations: [{ path: "/db_path", message: "must name the notes database file" }],
    });
    assert.equal(error.message, "configuration rejected: /db_path must name the notes database file");
  });

  it("another ToolError keeps its category and code", async () => {
    const s = service(() => {
      throw new ToolError("permission_denied", "the database folder is read-only");
    });
    const error = await rejection(configure(s, { db_path: "/ro/notes.db" }));
    assert.equal(error.code, GrpcCode.PERMISSION_DENIED);
    assert.equal(error.toolError?.category, ToolErrorCategory.PERMISSION_DENIED);
  });

  it("anything else thrown is unknown (INTERNAL) with its name and message, its stack in the log only; a secret in it is redacted", async () => {
    const lines: string[] = [];
    const s = service(
      (c) => {
        throw new TypeError(`unable to open database file with token ${c.token}`);
      },
      { stderr: (line) => lines.push(line) },
    );
    const error = await rejection(configure(s, { db_path: "notes.db", token: "sk-notes-0123456789" }));
    assert.equal(error.code, GrpcCode.INTERNAL);
    assert.equal(error.toolError?.category, ToolErrorCategory.UNKNOWN);
    assert.match(error.message, /configure hook threw: unable to open database file with token \[REDACTED\]/);
    assert.deepEqual(error.toolError?.details, {
      error: { name: "TypeError", message: "unable to open database file with token [REDACTED]" },
    });
    const logged = lines
      .map((l) => JSON.parse(l) as { "@level": string; stack?: string })
      .find((l) => l.stack !== undefined);
    assert.equal(logged?.["@level"], "error");
    assert.match(logged?.stack ?? "", /^TypeError: unable to open database file with token \[REDACTED\]\n\s+at /);
    assert.ok(!lines.join("\n").includes("sk-notes-0123456789"), lines.join("\n"));
  });

  it("a hook that never ends is refused at the call's deadline with a timeout, its signal aborted", {
    timeout: 10_000,
  }, async () => {
    let aborted: unknown;
    const s = service((_c, { signal }) => {
      signal.addEventListener("abort", () => {
        aborted = signal.reason;
      });
      return new Promise<void>(() => {});
    });
    const error = await rejection(configure(s, { db_path: "notes.db" }, new Date(Date.now() + 50)));
    assert.equal(error.code, GrpcCode.DEADLINE_EXCEEDED);
    assert.equal(error.toolError?.category, ToolErrorCategory.TIMEOUT);
    assert.match(error.message, /configure hook did not finish within the Configure call's deadline/);
    assert.ok(aborted instanceof ToolError && aborted.category === "timeout");
  });

  it("a deadline past setTimeout's limit (40 days) lets a slow hook finish", { timeout: 10_000 }, async () => {
    const s = service(() => new Promise<void>((resolve) => setTimeout(resolve, 30)));
    await configure(s, { db_path: "notes.db" }, new Date(Date.now() + 40 * 24 * 3600 * 1000));
  });

  it("without a deadline from the host, the service's bound applies", { timeout: 10_000 }, async () => {
    const s = service(() => new Promise<void>(() => {}), { configureHookTimeoutMs: 20 });
    const error = await rejection(configure(s, { db_path: "notes.db" }));
    assert.equal(error.toolError?.category, ToolErrorCategory.TIMEOUT);
    assert.match(error.message, /within its bound of 20 ms \(the host set no deadline\)/);
  });

  it("a refused second Configure keeps the first config in force", async () => {
    const s = service((c) => {
      if (c.db_path.endsWith(".txt")) throw configError("db_path", "is not a database");
    });
    await configure(s, { db_path: "first.db" });
    await rejection(configure(s, { db_path: "second.txt" }));
    assert.equal(await invokedWith(s), "first.db");
    await configure(s, { db_path: "third.db" });
    assert.equal(await invokedWith(s), "third.db");
  });

  it("of overlapping Configures, the latest started among those accepted is in force, whichever hook finishes first", async () => {
    let releaseSlow: () => void = () => {};
    const s = service((c) => {
      if (c.db_path.endsWith(".txt")) throw configError("db_path", "is not a database");
      if (c.db_path !== "slow.db") return undefined;
      return new Promise<void>((resolve) => {
        releaseSlow = resolve;
      });
    });
    const slow = configure(s, { db_path: "slow.db" });
    await configure(s, { db_path: "fast.db" });
    releaseSlow();
    await slow;
    assert.equal(await invokedWith(s), "fast.db", "the slow one started first: it does not replace the later one");
    const slowAgain = configure(s, { db_path: "slow.db" });
    await rejection(configure(s, { db_path: "refused.txt" }));
    releaseSlow();
    await slowAgain;
    assert.equal(await invokedWith(s), "slow.db", "a later refused one does not hide an earlier accepted one");
  });

  it("configError takes a JSON Pointer for a nested attribute", () => {
    assert.deepEqual(configError("/db/password", "is too short").details, {
      violations: [{ path: "/db/password", message: "is too short" }],
    });
    assert.deepEqual(configError("a/b", "x").details, { violations: [{ path: "/a~1b", message: "x" }] });
  });
});
