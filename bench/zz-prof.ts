import { buildBenchGo, KernelHost } from "./kernel-host.js";
import { invokeRequest } from "./kernel-contenders.js";
const go = buildBenchGo();
if ("skip" in go) throw 0;
const host = new KernelHost(go.host);
const dir = process.argv[3]!;
await host.launch("p", process.execPath, ["--cpu-prof", `--cpu-prof-dir=${dir}`, process.argv[2]!], { HARNESS_TOOL_SUPERVISOR: "off" });
await host.configure("p");
const mode = process.argv[4] ?? "echo";
if (mode === "echo") {
  const r = invokeRequest("echo", { text: "hello" }, "/tmp");
  await host.load("p", r, 2000, 32);
  const t = await host.load("p", r, 20000, Number(process.argv[5] ?? 1));
  console.log("p50", t.latenciesMs[Math.floor(t.latenciesMs.length / 2)]);
} else {
  for (let i = 0; i < 3; i++) console.log(await host.stream("p", invokeRequest("bash", { command: "head -c 200000000 /dev/zero" }, "/tmp")));
}
await host.kill("p");
await host.close();
