// Soak: test/runtime/reliability/secrets.test.ts with 25 times the runs (30,000 randomized leak plans).
process.env["SECRETS_RUNS"] ??= "25";
await import("../test/runtime/reliability/secrets.test.js");
