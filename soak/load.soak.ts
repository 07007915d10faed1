// Soak: the load scenarios of test/runtime/reliability/load.test.ts at 100,000 invokes each (in-process,
// and through the wire at 64 concurrent calls), with the same accounting and memory bounds.
process.env["LOAD_CALLS"] ??= "100000";
process.env["WIRE_CALLS"] ??= "100000";
await import("../test/runtime/reliability/load.test.js");
