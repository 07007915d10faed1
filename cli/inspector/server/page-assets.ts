/**
 * The inspector page's files: the committed bundle in cli/inspector/page-dist (built from
 * cli/inspector/page by `npm run build:inspector`; a test fails when it drifts from its sources), and
 * the HTML shell around it. Read from the package, so the page works offline and from an installed
 * tarball, where this module runs from dist/inspector/server/ and the bundle stays in inspector/.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The page's script and style sheet. */
export interface PageAssets {
  readonly scriptName: string;
  readonly script: string;
  readonly styleName: string;
  readonly style: string;
}

/** The bundle's folder: beside server/ in a checkout, at the same place in the package when compiled to dist/inspector/server/. */
export function pageDistDir(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const candidates = [path.resolve(here, "../page-dist"), path.resolve(here, "../../../inspector/page-dist")];
  const found = candidates.find((dir) => existsSync(path.join(dir, "inspector.js")));
  if (!found)
    throw new Error(
      `the inspector page's bundle is missing (looked in ${candidates.join(", ")}); run \`npm run build:inspector\``,
    );
  return found;
}

/** Reads the bundle once. */
export function loadPageAssets(): PageAssets {
  const dir = pageDistDir();
  return {
    scriptName: "inspector.js",
    script: readFileSync(path.join(dir, "inspector.js"), "utf8"),
    styleName: "inspector.css",
    style: readFileSync(path.join(dir, "inspector.css"), "utf8"),
  };
}

/** The HTML shell: relative asset URLs, so they carry the token path the page was loaded from. */
export function pageHtml(assets: PageAssets): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="data:,">
<title>harness-tool inspect</title>
<link rel="stylesheet" href="${assets.styleName}">
<script type="module" src="${assets.scriptName}"></script>
</head>
<body>
<div id="app"><p class="loading">Connecting to the provider…</p></div>
</body>
</html>
`;
}
