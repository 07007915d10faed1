#!/usr/bin/env node
// Builds the inspector page (cli/inspector/page, Preact + TSX) into cli/inspector/page-dist/inspector.js
// and inspector.css with esbuild: one minified module and one style sheet, no CDN, nothing fetched
// at run time. The output is committed, so a clean clone and an installed package serve it without a
// build step; test/cli/inspect-page-drift.test.ts rebuilds it in memory and fails on any difference.
//
//   node cli/inspector/page/build-page.mjs          write page-dist/
//   node cli/inspector/page/build-page.mjs --check  exit 1 when page-dist/ is stale
import { build } from "esbuild";
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
export const pageDist = path.join(here, "../page-dist");

/** Builds the page in memory: `{ "inspector.js": text, "inspector.css": text }`. */
export async function buildPage() {
  const result = await build({
    entryPoints: { inspector: path.join(here, "main.tsx") },
    outdir: pageDist,
    bundle: true,
    write: false,
    format: "esm",
    platform: "browser",
    target: "es2022",
    minify: true,
    jsx: "automatic",
    jsxImportSource: "preact",
    legalComments: "eof",
    charset: "utf8",
    logLevel: "silent",
  });
  const files = {};
  for (const file of result.outputFiles) files[path.basename(file.path)] = file.text;
  return files;
}

/** The committed files, for the drift check. */
export function committedPage() {
  const files = {};
  for (const name of ["inspector.js", "inspector.css"]) {
    try {
      files[name] = readFileSync(path.join(pageDist, name), "utf8");
    } catch {
      files[name] = undefined;
    }
  }
  return files;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const built = await buildPage();
  if (process.argv.includes("--check")) {
    const committed = committedPage();
    const stale = Object.keys(built).filter((name) => built[name] !== committed[name]);
    if (stale.length > 0) {
      process.stderr.write(`cli/inspector/page-dist is stale (${stale.join(", ")}); run \`npm run build:inspector\`\n`);
      process.exit(1);
    }
  } else {
    mkdirSync(pageDist, { recursive: true });
    for (const [name, text] of Object.entries(built)) {
      writeFileSync(path.join(pageDist, name), text);
      process.stdout.write(`wrote cli/inspector/page-dist/${name} (${Buffer.byteLength(text)} bytes)\n`);
    }
  }
}
