/**
 * Suite 7, the inspector page (`harness-tool inspect`): the committed bundle's size against the
 * Preact runtime it is built on, and in headless chromium the page's first contentful paint and the
 * moment its tool list is drawn (provider identity and tools fetched over the event stream) against
 * the first paint of a one-line static page served by a bare Node http server in the same run.
 */
import { existsSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import { InspectSession, startInspectServer } from "../cli/inspector/index.js";
import { providerTarget } from "../cli/provider/provider-target.js";
import { repoRoot } from "./bench-workspace.js";
import { median, roundRobinOrder } from "./measure.js";
import { compared, formatMs, failedFigure, type Figure, type SuiteReport } from "./report.js";
import type { Suite, SuiteContext } from "./suite.js";

/** Bytes as KiB with one decimal. */
const formatKib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;

const staticPage =
  "<!doctype html><html><head><meta charset=utf-8><title>baseline</title></head><body><p>A static line of text.</p></body></html>";

/** Preact and its hooks alone, minified the way the page is: the floor of any Preact page. */
async function preactFloorBytes(): Promise<number> {
  const result = await build({
    stdin: {
      contents:
        'import { render, h } from "preact"; import { useState } from "preact/hooks"; render(h("p", null, String(useState)), document.body);',
      resolveDir: repoRoot,
      loader: "js",
    },
    bundle: true,
    write: false,
    format: "esm",
    minify: true,
    target: "es2022",
    logLevel: "silent",
  });
  return gzipSync(result.outputFiles[0]?.contents ?? new Uint8Array()).byteLength;
}

/** The inspector suite. */
export const inspectorSuite: Suite = {
  id: "inspector",
  title: "8. Inspector page (bundle size, first paint in chromium)",
  async run(context: SuiteContext): Promise<SuiteReport> {
    const runs = context.runs ?? (context.quick ? 3 : 15);
    const figures: Figure[] = [];
    const notes: string[] = [];
    const dist = path.join(repoRoot, "cli/inspector/page-dist");
    const script = readFileSync(path.join(dist, "inspector.js"));
    const style = readFileSync(path.join(dist, "inspector.css"));
    const floor = await preactFloorBytes();
    const pageGzip = gzipSync(script).byteLength + gzipSync(style).byteLength;
    figures.push(
      compared(
        "page bundle (inspector.js + .css), gzip",
        pageGzip,
        formatKib,
        { label: "preact + hooks alone", value: floor },
        5,
        `minified, before gzip: ${formatKib(script.byteLength + style.byteLength)}`,
      ),
    );

    const chromiumPath = [process.env["HARNESS_TOOL_CHROMIUM"], "/usr/bin/chromium", "/usr/bin/chromium-browser"].find(
      (c): c is string => !!c && existsSync(c),
    );
    if (!chromiumPath) {
      figures.push(failedFigure("first paint", "no chromium (apt-get install chromium)"));
      return report(this, runs, figures, notes);
    }
    const { chromium } = await import("playwright-core");
    const session = await InspectSession.start(
      providerTarget(path.join(repoRoot, "bench/fixtures/bench-provider.ts"), []),
      { workingDirectory: repoRoot },
    );
    const server = await startInspectServer(session);
    const baseline = createServer((_, res) => {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(staticPage);
    });
    await new Promise<void>((resolve) => baseline.listen(0, "127.0.0.1", resolve));
    const baselineUrl = `http://127.0.0.1:${(baseline.address() as AddressInfo).port}/`;
    const browser = await chromium.launch({ executablePath: chromiumPath, args: ["--no-sandbox"] });
    const samples = { static: [] as number[], paint: [] as number[], tools: [] as number[] };
    try {
      const contenders = ["static", "inspector"] as const;
      for (let round = 0; round <= runs; round++) {
        context.log(`inspector round ${round}/${runs}${round === 0 ? " (warm-up)" : ""}`);
        for (const which of roundRobinOrder(contenders, round)) {
          // A fresh context per load: no cache, no kept connection.
          const browserContext = await browser.newContext();
          const page = await browserContext.newPage();
          await page.goto(which === "static" ? baselineUrl : server.url);
          if (which === "inspector") await page.locator("nav.sidebar .nav-item code").first().waitFor();
          const timing = await page.evaluate<{ paint: number; now: number }>(
            `(async () => { for (let i = 0; i < 100 && performance.getEntriesByName("first-contentful-paint").length === 0; i++) await new Promise((r) => setTimeout(r, 10)); return { paint: performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? NaN, now: performance.now() }; })()`,
          );
          await browserContext.close();
          if (round === 0) continue;
          if (which === "static") samples.static.push(timing.paint);
          else {
            samples.paint.push(timing.paint);
            samples.tools.push(timing.now);
          }
        }
      }
    } finally {
      await browser.close();
      baseline.close();
      await server.close();
      await session.close();
    }
    const base = { label: "static page FCP", value: median(samples.static) };
    figures.push(compared("inspector page: first contentful paint", median(samples.paint), formatMs, base, 3));
    figures.push(compared("inspector page: tool list drawn (data over SSE)", median(samples.tools), formatMs, base, 6));
    return report(this, runs, figures, notes);
  },
};

function report(suite: Suite, runs: number, figures: Figure[], notes: string[]): SuiteReport {
  return {
    id: suite.id,
    title: suite.title,
    method: [
      "Bundle: the committed cli/inspector/page-dist files, gzip level 6, against an esbuild bundle (minified, es2022) of Preact's render and hooks alone.",
      `Paint: headless Debian chromium through playwright-core, one fresh browser context per load (no cache), ${runs} loads per page round-robin after an uncounted warm-up round; the inspector serves the bench provider (bench/fixtures/bench-provider.ts) launched through the handshake.`,
      "First contentful paint is the browser's paint timing; tool list drawn is performance.now() once the first tool's name is in the sidebar, i.e. after the script ran, the event stream opened and the snapshot arrived.",
      "Targets: bundle at most 5× Preact alone; first paint at most 3× and the tool list at most 6× the static page's first paint.",
    ],
    figures,
    notes,
  };
}
