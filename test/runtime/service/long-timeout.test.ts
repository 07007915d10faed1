// setLongTimeout: a delay past setTimeout's limit (2^31 − 1 ms) waits the whole delay instead of
// firing after 1 ms; Preview, Render, the configure hook and DispatchHook time their deadlines with it.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { setLongTimeout } from "../../../runtime/service/calls/long-timeout.js";
import { sleep } from "./support/recording-sink.js";

/** 40 days: past the limit, as a tool's default_timeout or a host's deadline may be. */
const fortyDaysMs = 40 * 24 * 3600 * 1000;

describe("setLongTimeout", () => {
  it("a delay past 2^31 − 1 ms does not fire at once, and warns of no overflow", async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on("warning", onWarning);
    let fired = 0;
    const timer = setLongTimeout(() => fired++, fortyDaysMs);
    await sleep(50);
    timer.clear();
    process.off("warning", onWarning);
    assert.equal(fired, 0);
    assert.deepEqual(
      warnings.map((w) => w.name),
      [],
    );
  });

  it("waits in steps until the whole delay has passed, then fires once", async () => {
    let fired = 0;
    const started = performance.now();
    let firedAt = 0;
    setLongTimeout(
      () => {
        fired++;
        firedAt = performance.now() - started;
      },
      60,
      15,
    );
    await sleep(30);
    assert.equal(fired, 0, "not at the first step");
    for (let i = 0; i < 200 && fired === 0; i++) await sleep(10);
    await sleep(40);
    assert.equal(fired, 1);
    // Node's timers run on the loop's cached clock, so a timer may look up to a couple of ms early
    // against performance.now(); what matters is the whole delay, not the 15 ms step.
    assert.ok(firedAt >= 55, `fired after ${firedAt} ms of 60`);
  });

  it("cleared, it never fires; a delay that is not finite never fires", async () => {
    let fired = 0;
    setLongTimeout(() => fired++, 10).clear();
    setLongTimeout(() => fired++, 20, 5).clear();
    const forever = setLongTimeout(() => fired++, Number.POSITIVE_INFINITY);
    await sleep(50);
    forever.clear();
    assert.equal(fired, 0);
  });
});
