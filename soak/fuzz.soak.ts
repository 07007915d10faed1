// Soak: test/runtime/reliability/fuzz.test.ts with 25 times the runs (5,000 argument sets per example
// tool, 3,000 random protos and 1,000 protos inside the subset through the plugin).
process.env["FUZZ_RUNS"] ??= "25";
await import("../test/runtime/reliability/fuzz.test.js");
