// filterStderr (runtime/transport/host-log.ts): the served process's stderr exit. Every write to
// process.stderr (strings, bytes, with or without a callback, the transport's own lines) passes the
// filter; a filter that throws drops the write instead of letting it through; removing it restores
// the previous write.
import assert from "node:assert/strict";
import { test } from "node:test";
import { filterStderr, hostLog } from "../../../runtime/transport/host-log.js";

test("every stderr write passes the filter, and a failing filter drops the write", async () => {
  const real = process.stderr.write;
  const written: string[] = [];
  const recorder = ((chunk: unknown, encoding?: unknown, callback?: unknown) => {
    written.push(typeof chunk === "string" ? chunk : Buffer.from(chunk as Uint8Array).toString("utf8"));
    const done = typeof encoding === "function" ? encoding : callback;
    if (typeof done === "function") (done as () => void)();
    return true;
  }) as typeof process.stderr.write;
  process.stderr.write = recorder;
  try {
    let failing = false;
    const remove = filterStderr((text) => {
      if (failing) throw new Error("cannot redact hunter22");
      return text.replaceAll("hunter22", "[X]");
    });
    process.stderr.write("a hunter22 line\n");
    process.stderr.write(Buffer.from("bytes hunter22\n"));
    await new Promise<void>((resolve) => process.stderr.write("with a callback hunter22\n", () => resolve()));
    await new Promise<void>((resolve) =>
      process.stderr.write(Buffer.from("bytes, callback hunter22\n"), "utf8", () => resolve()),
    );
    hostLog("warn", "the transport's own line hunter22");
    failing = true;
    process.stderr.write("dropped hunter22\n");
    remove();
    assert.equal(process.stderr.write, recorder, "removing the filter restores the previous write");
    process.stderr.write("after hunter22\n");

    assert.deepEqual(written.slice(0, 4), [
      "a [X] line\n",
      "bytes [X]\n",
      "with a callback [X]\n",
      "bytes, callback [X]\n",
    ]);
    assert.match(written[4] ?? "", /"@message":"the transport's own line \[X\]"/);
    assert.match(written[5] ?? "", /a stderr write was dropped because redacting it failed/);
    assert.ok(!(written[5] ?? "").includes("hunter22"), "the failed write's text never goes out");
    assert.equal(written[6], "after hunter22\n");
  } finally {
    process.stderr.write = real;
  }
});
