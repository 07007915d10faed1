/**
 * Soak: the host going away, in cycles (HOST_CYCLES, default 20 of each): the host SIGKILLed
 * mid-call and the broker stream ending. Every cycle must meet the protocol's 2 s and leave no
 * provider, child process or socket file behind; the slowest exit is printed.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  brokerEndedScenario,
  hostSigkilledScenario,
  protocolExitMs,
} from "../test/runtime/reliability/support/host-scenarios.js";

const cycles = Number(process.env["HOST_CYCLES"] ?? "20");

test(`the host SIGKILLed mid-call, ${cycles} times`, async () => {
  const times: number[] = [];
  for (let i = 0; i < cycles; i++) times.push(await hostSigkilledScenario());
  times.sort((a, b) => a - b);
  console.log(
    `# exit after host SIGKILL: median ${times[times.length >> 1]?.toFixed(0)} ms, max ${times.at(-1)?.toFixed(0)} ms over ${cycles} cycles`,
  );
  assert.ok((times.at(-1) ?? 0) <= protocolExitMs);
});

test(`the broker stream ending, ${cycles} times`, async () => {
  for (let i = 0; i < cycles; i++) await brokerEndedScenario();
});
