// Writes test/plugin/golden/ (see update-golden.mjs): the TypeScript target in golden/, the
// JavaScript and declarations target in golden/js-dts/.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { buildFiles, generate } from "./plugin-request.js";
import { goldenProtos, goldenTargets } from "./golden-targets.js";

const root = path.resolve(import.meta.dirname, "..");
const files = buildFiles(".", path.join(root, "protos"));
for (const { folder, parameter } of goldenTargets) {
  const run = await generate(files, goldenProtos, parameter);
  if (run.response.error) throw new Error(run.response.error);
  mkdirSync(path.join(root, folder), { recursive: true });
  for (const file of run.response.file) writeFileSync(path.join(root, folder, file.name), file.content);
}
