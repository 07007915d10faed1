/**
 * The calls' timeouts on one timer (runtime/service/calls/deadline-queue.ts): each due in deadline
 * order and never early, across lanes of different timeouts; a cancelled one never due, also when
 * it was the one the timer was armed for; and the timer holds the process only while one waits.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { DeadlineQueue } from "../../../runtime/service/calls/deadline-queue.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Until nothing waits (a loaded machine's timers fire late), at most 10 s. */
async function settled(queue: DeadlineQueue): Promise<void> {
  for (let waited = 0; queue.waiting > 0 && waited < 10_000; waited += 10) await sleep(10);
}
const refedTimers = () => process.getActiveResourcesInfo().filter((r) => r === "Timeout").length;

test("deadlines come due in order and never before their time, across timeouts of different lengths", async () => {
  const queue = new DeadlineQueue();
  const fired: { name: string; late: number }[] = [];
  const add = (name: string, ms: number) => {
    const deadline = queue.add(ms, () => fired.push({ name, late: performance.now() - deadline.at }));
    return deadline;
  };
  add("long", 120);
  add("short-1", 30);
  await sleep(10);
  add("short-2", 30);
  add("mid", 60);
  await settled(queue);
  assert.deepEqual(
    fired.map((f) => f.name),
    ["short-1", "short-2", "mid", "long"],
  );
  for (const f of fired) assert.ok(f.late >= 0, `${f.name} came due ${-f.late} ms early`);
  assert.equal(queue.waiting, 0);
});

test("a cancelled deadline never comes due, also the earliest one the timer was armed for", async () => {
  const queue = new DeadlineQueue();
  const fired: string[] = [];
  const first = queue.add(20, () => fired.push("first"));
  const second = queue.add(40, () => fired.push("second"));
  queue.add(60, () => fired.push("third"));
  queue.cancel(first);
  queue.cancel(second);
  queue.cancel(second);
  assert.equal(queue.waiting, 1);
  await settled(queue);
  await sleep(50);
  assert.deepEqual(fired, ["third"]);
});

test("the timer holds the process only while a deadline waits", async () => {
  const queue = new DeadlineQueue();
  const before = refedTimers();
  const a = queue.add(10_000, () => assert.fail("cancelled"));
  assert.equal(refedTimers(), before + 1);
  queue.cancel(a);
  assert.equal(refedTimers(), before);
  // Armed again for a later call: held again, and let go once it is cancelled.
  const b = queue.add(10_000, () => assert.fail("cancelled"));
  assert.equal(refedTimers(), before + 1);
  queue.cancel(b);
  assert.equal(refedTimers(), before);
  // Due with nothing left (the timer fired for a cancelled one): nothing is re-armed.
  const c = queue.add(20, () => assert.fail("cancelled"));
  queue.cancel(c);
  let fired = false;
  queue.add(40, () => {
    fired = true;
  });
  await settled(queue);
  assert.ok(fired);
  assert.equal(refedTimers(), before);
});

test("a timeout longer than setTimeout's limit waits instead of firing at once or spinning", async () => {
  const queue = new DeadlineQueue();
  const warnings: string[] = [];
  const onWarning = (warning: Error) => warnings.push(warning.name);
  process.on("warning", onWarning);
  let armings = 0;
  const realSetTimeout = globalThis.setTimeout;
  globalThis.setTimeout = ((fn: () => void, ms?: number) => {
    armings++;
    return realSetTimeout(fn, ms);
  }) as typeof setTimeout;
  try {
    const long = queue.add(40 * 24 * 3_600_000, () => assert.fail("a 40-day timeout came due"));
    await sleep(100);
    queue.cancel(long);
  } finally {
    globalThis.setTimeout = realSetTimeout;
    process.off("warning", onWarning);
  }
  assert.deepEqual(warnings, [], "no TimeoutOverflowWarning");
  assert.ok(armings <= 3, `armed ${armings} times in 100 ms: it spins`);
});
