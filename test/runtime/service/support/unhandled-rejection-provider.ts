// Run as a child process by process-guards.test.ts: a handler starts work that rejects and is
// never awaited, and one that throws from a timer callback; the process must survive both.
import { createToolService } from "../../../../runtime/service/calls/index.js";
import { echo, providerWith } from "./sample-tools.js";
import { invokeRequest, recordingSink, sleep } from "./recording-sink.js";

const lines: string[] = [];
const service = createToolService(
  providerWith(echo, async (i) => {
    void Promise.reject(new Error("forgotten rejection sk-secret-value"));
    setTimeout(() => {
      throw new Error("thrown from a timer");
    }, 1);
    return i;
  }),
  { stderr: (l) => lines.push(l), guardProcess: true },
);
await service.configure({ $typeName: "pluggableharness.tool.v1.ConfigureRequest" } as never);
const rec = recordingSink();
await service.invoke(invokeRequest("echo", { text: "a" }), rec.sink);
await sleep(50);
process.stderr.write(JSON.stringify({ terminal: rec.cases(), guarded: lines.length }) + "\n");
process.stdout.write("survived\n");
