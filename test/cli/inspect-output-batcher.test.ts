// The inspector's output batching: text within the window goes out as one event, a change of
// stream or a flush sends what is held first, and nothing is lost or reordered.
import assert from "node:assert/strict";
import { it } from "node:test";
import { OutputBatcher, type OutputBatch } from "../../cli/inspector/server/output-batcher.js";

it("joins text within the window into one batch, sent when the window closes", async (t) => {
  t.mock.timers.enable({ apis: ["setTimeout"] });
  const sent: OutputBatch[] = [];
  const batcher = new OutputBatcher((batch) => sent.push(batch), 25);
  for (let i = 1; i <= 300; i++) batcher.add("stdout", `line ${i}\n`);
  assert.equal(sent.length, 0);
  t.mock.timers.tick(25);
  assert.equal(sent.length, 1);
  assert.equal(sent[0]?.text, Array.from({ length: 300 }, (_, n) => `line ${n + 1}\n`).join(""));
  batcher.add("stdout", "later\n");
  t.mock.timers.tick(24);
  assert.equal(sent.length, 1);
  t.mock.timers.tick(1);
  assert.deepEqual(sent.at(-1), { stream: "stdout", text: "later\n" });
});

it("keeps the order across streams and sends what it holds on flush", (t) => {
  t.mock.timers.enable({ apis: ["setTimeout"] });
  const sent: OutputBatch[] = [];
  const batcher = new OutputBatcher((batch) => sent.push(batch), 25);
  batcher.add("stdout", "a");
  batcher.add("stdout", "b");
  batcher.add("stderr", "oops");
  batcher.add("stderr", "");
  batcher.add("stdout", "c");
  batcher.flush();
  batcher.flush();
  assert.deepEqual(sent, [
    { stream: "stdout", text: "ab" },
    { stream: "stderr", text: "oops" },
    { stream: "stdout", text: "c" },
  ]);
  t.mock.timers.tick(100);
  assert.equal(sent.length, 3, "a flushed batch is not sent again when its window would have closed");
});
