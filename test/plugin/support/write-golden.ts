// Writes test/plugin/golden/ (see update-golden.mjs).
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { buildFiles, generate } from "./plugin-request.js";

const root = path.resolve(import.meta.dirname, "..");
const files = buildFiles(".", path.join(root, "protos"));
const run = await generate(files, ["mapping.proto", "no_timeout.proto"], "target=ts,import_extension=js");
if (run.response.error) throw new Error(run.response.error);
mkdirSync(path.join(root, "golden"), { recursive: true });
for (const file of run.response.file) writeFileSync(path.join(root, "golden", file.name), file.content);
