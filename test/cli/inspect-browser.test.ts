// `harness-tool inspect` in a real browser: Debian's chromium driven by playwright-core, against
// the examples' providers launched through the handshake. Each main view is saved as a screenshot
// under the OS temp dir (harness-tool-inspect-screenshots/). Without chromium the tests skip with
// the reason, unless HARNESS_TOOL_REQUIRE_BROWSER=1 (CI), where they fail instead.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it, type TestContext } from "node:test";
import { chromium, type Browser, type Page } from "playwright-core";
import { repoRoot } from "../support/buf.js";
import { findChromium, screenshotPath, startInspector, type RunningInspector } from "../support/inspector-browser.js";

const browserBinary = findChromium();
const skip = "missing" in browserBinary ? `skipped: ${browserBinary.missing}` : false;

let browser: Browser | undefined;

async function openPage(url: string): Promise<Page> {
  browser ??= await chromium.launch({
    executablePath: (browserBinary as { path: string }).path,
    args: ["--no-sandbox"],
  });
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const problems: string[] = [];
  page.on("pageerror", (error) => problems.push(error.message));
  page.on("console", (message) => {
    // A 4xx the test provokes is the page's expected answer, not a fault of the page.
    if (message.type() === "error" && !message.text().startsWith("Failed to load resource"))
      problems.push(message.text());
  });
  (page as Page & { problems?: string[] }).problems = problems;
  await page.goto(url);
  await page.locator("header.identity").waitFor();
  return page;
}

function pageProblems(page: Page): string[] {
  return (page as Page & { problems?: string[] }).problems ?? [];
}

async function shoot(t: TestContext, page: Page, name: string): Promise<void> {
  const file = screenshotPath(name);
  await page.screenshot({ path: file, fullPage: true });
  t.diagnostic(`screenshot: ${file}`);
}

/** Waits until the history table has (at least) `n` rows. */
const historyRow = (page: Page, n: number) =>
  page
    .getByLabel("history")
    .locator("tbody tr")
    .nth(n - 1)
    .waitFor();

const example = (name: string) => path.join(repoRoot, "examples", name);

after(async () => {
  await browser?.close();
});

describe("inspect: the exec example's streaming bash tool", { skip }, () => {
  let dir = "";
  let inspector: RunningInspector;
  let page: Page;
  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "harness-tool-inspect-exec-"));
    inspector = await startInspector(example("exec"), { dir, config: { allowed_roots: [dir] } });
    page = await openPage(inspector.url);
  });
  after(async () => {
    await page?.close();
    await inspector?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("prints the URL with its token and shows the provider's identity and tool facts", async (t) => {
    assert.match(inspector.printed(), /http:\/\/127\.0\.0\.1:\d+\/[A-Za-z0-9_-]{32}\//);
    assert.match(
      await page.locator("header.identity").innerText(),
      /exec\s+0\.1\.0[\s\S]*github\.com\/harness-tool\/examples\/exec[\s\S]*tool provider · protocol v1/,
    );
    const facts = await page.getByLabel("tool facts").innerText();
    for (const fact of [
      /kind\s+resource/,
      /risk\s+high/,
      /streaming\s+yes/,
      /concurrency\s+exclusive/,
      /timeout\s+120s/,
      /idempotent\s+no/,
      /terminates_turn\s+no/,
    ])
      assert.match(facts, fact);
    // No hook points advertised: no Hooks panel.
    assert.equal(
      await page
        .getByRole("navigation")
        .getByRole("button", { name: /^Hooks/ })
        .count(),
      0,
    );
    await shoot(t, page, "tool-form");
  });

  it("fills the form, invokes, and shows the output live, then the exit status and the checked result", async (t) => {
    await page.getByLabel(/^command/).fill("echo first; sleep 1.5; echo second; echo to-stderr >&2; exit 3");
    await page.getByRole("button", { name: "Invoke" }).click();
    // Live: the first line is on the page while the call still runs.
    await page.locator('.call[data-state="running"] .terminal', { hasText: "first" }).waitFor();
    assert.doesNotMatch(await page.locator(".terminal").innerText(), /second/);
    await page.locator('.call[data-state="result"]').waitFor();
    assert.match(await page.locator(".terminal").innerText(), /first\nsecond\nto-stderr/);
    assert.equal(await page.locator(".terminal .stderr").innerText(), "to-stderr\n");
    assert.equal(await page.getByLabel("exit status").innerText(), "exit status 3");
    assert.match(
      await page.getByLabel("result", { exact: true }).innerText(),
      /matches output_schema[\s\S]*"exit_code": 3/,
    );
    assert.match(await page.locator(".call .timings").innerText(), /OK · first event \d+ ms · total \d+ ms/);
    await page.locator(".cli-line summary").click();
    assert.match(
      await page.locator(".cli-line code").innerText(),
      new RegExp(
        `^npx harness-tool invoke ${process.execPath} bash --cwd ${dir} --args '\\{"command":"echo first; sleep 1\\.5; echo second; echo to-stderr >&2; exit 3"\\}' -- --conditions=harness-tool-source --import \\S+ \\S+/examples/exec/src/main\\.ts$`,
      ),
    );
    await shoot(t, page, "invoke-streamed");
    assert.deepEqual(pageProblems(page), []);
  });

  it("cancels a call mid-stream as the kernel does", async (t) => {
    await page.getByLabel(/^command/).fill("for i in $(seq 1 200); do echo tick $i; sleep 0.1; done");
    await page.getByRole("button", { name: "Invoke" }).click();
    await page.locator(".call .terminal", { hasText: "tick 3" }).waitFor();
    await page.getByRole("button", { name: "Cancel" }).click();
    await page.locator('.call[data-state="cancelled"]').waitFor();
    const call = await page.locator(".call").innerText();
    assert.match(call, /CANCELLED/);
    assert.match(call, /no terminal event came, as the protocol requires/);
    assert.doesNotMatch(call, /tick 200/);
    await shoot(t, page, "invoke-cancelled");
  });

  it("shows the provider's validation error on bad arguments, with its category", async (t) => {
    await page.getByLabel("Raw JSON").check();
    await page.locator('textarea[name="raw-arguments"]').fill('{"command": 5}');
    await page.getByRole("button", { name: "Invoke" }).click();
    const error = page.getByLabel("tool error");
    await error.waitFor();
    assert.match(await error.innerText(), /invalid_arguments[\s\S]*input_schema/);
    assert.match(await page.getByLabel("error details").innerText(), /"path": "\/command"/);
    // Bad JSON never leaves the page.
    await page.locator('textarea[name="raw-arguments"]').fill("{not json");
    await page.getByRole("button", { name: "Invoke" }).click();
    assert.match(await page.locator("form .error-text").innerText(), /not JSON/);
    await shoot(t, page, "validation-error");
    await page.locator('textarea[name="raw-arguments"]').fill('{"command": "echo back"}');
    await page.getByLabel("Raw JSON").uncheck();
    assert.equal(await page.getByLabel(/^command/).inputValue(), "echo back");
  });

  it("keeps a history whose calls re-run with the same arguments", async (t) => {
    const rows = page.getByLabel("history").locator("tbody tr");
    const before = await rows.count();
    assert.ok(before >= 3, `history has ${before} rows`);
    const first = rows.last();
    assert.match(await first.innerText(), /echo first/);
    await first.getByRole("button", { name: "Re-run" }).click();
    await historyRow(page, before + 1);
    await page.locator('.call[data-state="result"]').waitFor();
    assert.equal(await page.getByLabel("exit status").innerText(), "exit status 3");
    await shoot(t, page, "history");
  });
});

describe("inspect: the guard example's hooks", { skip }, () => {
  let dir = "";
  let inspector: RunningInspector;
  let page: Page;
  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "harness-tool-inspect-guard-"));
    inspector = await startInspector(example("guard"), {
      dir,
      config: { root: dir, redact_patterns: ["sk-[A-Za-z0-9]+"] },
    });
    page = await openPage(inspector.url);
  });
  after(async () => {
    await page?.close();
    await inspector?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const hookCall = () => page.locator('.hook-call:not([data-state="running"])');

  it("fires a veto at plan-ready with check's sample, then a plan outside the root: allow, then deny with the Log line", async (t) => {
    await page
      .getByRole("navigation")
      .getByRole("button", { name: /^Hooks/ })
      .click();
    const panel = page.getByLabel("hooks", { exact: true });
    assert.match(
      await panel.locator("p.description").innerText(),
      /It advertises pre-model-call, plan-ready, post-tool-call;/,
    );
    await page.locator('select[name="hook-point"]').selectOption("plan-ready");
    await page.locator('select[name="hook-mode"]').selectOption("veto");
    const payload = page.locator('textarea[name="hook-payload"]');
    // check's sample plan: one write_file of notes/a.txt, inside the root.
    const sample = JSON.parse(await payload.inputValue()) as {
      plan: { items: { toolName: string; input: { path: string } }[] };
    };
    assert.equal(sample.plan.items[0]?.toolName, "write_file");
    assert.equal(sample.plan.items[0]?.input.path, "notes/a.txt");
    assert.match(
      await panel.innerText(),
      /payload: PlanReadyPayload \(protobuf JSON\)[\s\S]*A transform may change nothing at this point/,
    );
    await page.getByRole("button", { name: "Fire" }).click();
    await hookCall().waitFor();
    assert.equal(await page.getByLabel("hook answer").locator(".badge").innerText(), "allow");
    await payload.fill((await payload.inputValue()).replace("notes/a.txt", "/etc/passwd"));
    await page.getByRole("button", { name: "Fire" }).click();
    await page.getByLabel("hook answer").locator(".badge", { hasText: "deny" }).waitFor();
    assert.match(await hookCall().locator(".call-header").innerText(), /^deny\s+plan-ready\s+veto\s+total \d+ ms$/i);
    const log = page.getByLabel("hook log lines").locator("li");
    await log.first().waitFor();
    assert.match(
      await log.first().innerText(),
      /warn plan denied: it touches paths outside the guarded folder\s[\s\S]*"write_file path=\/etc\/passwd/,
    );
    await page.locator(".hook-call .cli-line summary").click();
    assert.match(
      await page.locator(".hook-call .cli-line code").innerText(),
      /^npx harness-tool hook \S+ plan-ready --mode veto --payload hook-payload\.json -- --conditions=harness-tool-source --import \S+ \S+\/examples\/guard\/src\/main\.ts$/,
    );
    await shoot(t, page, "hook-veto-deny");
    assert.deepEqual(pageProblems(page), []);
  });

  it("fires a mode the guard does not subscribe in, and shows the refusal with its HookError category", async (t) => {
    await page.locator('select[name="hook-mode"]').selectOption("observe");
    await page.getByRole("button", { name: "Fire" }).click();
    const error = page.getByLabel("hook error");
    await error.waitFor();
    assert.match(await error.innerText(), /INVALID_RESPONSE/);
    assert.match(
      await error.innerText(),
      /DispatchHook refused \(gRPC status 3, HookError INVALID_RESPONSE\): .* \(fire what it subscribes to, or declare this\); the kernel logs it and the chain continues/,
    );
    await shoot(t, page, "hook-refused");
  });

  it("shows a transform's payload and whether it came back unchanged", async () => {
    await page.locator('select[name="hook-point"]').selectOption("pre-model-call");
    await page.locator('select[name="hook-mode"]').selectOption("transform");
    const payload = page.locator('textarea[name="hook-payload"]');
    await payload.fill((await payload.inputValue()).replace("Write one to notes/a.txt.", "my key is sk-abc123"));
    await page.getByRole("button", { name: "Fire" }).click();
    await page.getByLabel("transformed payload").waitFor();
    assert.match(await page.getByLabel("hook answer").innerText(), /transformed\s+the payload came back changed/);
    assert.match(await page.getByLabel("transformed payload").innerText(), /"text": "my key is \[REDACTED\]"/);
    await payload.fill((await payload.inputValue()).replace("my key is sk-abc123", "nothing to hide"));
    await page.getByRole("button", { name: "Fire" }).click();
    await page.getByLabel("hook answer").filter({ hasText: "identity" }).waitFor();
  });

  it("lists the hook calls in the history beside the tool calls, and re-runs one", async () => {
    await page.getByRole("tab", { name: /History/ }).click();
    const rows = page.getByLabel("history").locator("tbody tr.hook-row");
    assert.equal(await rows.count(), 5);
    const denied = rows.filter({ hasText: "deny" });
    assert.match(await denied.innerText(), /hook plan-ready veto[\s\S]*\/etc\/passwd[\s\S]*deny/);
    await denied.getByRole("button", { name: "Re-run" }).click();
    await page.getByLabel("history").locator("tbody tr.hook-row").nth(5).waitFor();
    // The newest row first: running until the answer comes.
    const newest = page.getByLabel("history").locator("tbody tr").first();
    await newest.filter({ hasText: "deny" }).waitFor();
    assert.match(await newest.innerText(), /hook plan-ready veto[\s\S]*\/etc\/passwd[\s\S]*deny/);
    await page.getByLabel("hook answer").locator(".badge", { hasText: "deny" }).waitFor();
    assert.deepEqual(pageProblems(page), []);
  });
});

describe("inspect: the filesystem example's Preview", { skip }, () => {
  let dir = "";
  let inspector: RunningInspector;
  let page: Page;
  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "harness-tool-inspect-fs-"));
    inspector = await startInspector(example("filesystem"), { dir, config: { allowed_roots: [dir] } });
    page = await openPage(inspector.url);
  });
  after(async () => {
    await page?.close();
    await inspector?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("opens on the first of its several tools", async () => {
    assert.equal(await page.getByLabel("tool read_file").count(), 1);
    assert.equal(
      await page
        .getByRole("navigation")
        .locator(".nav-item.active")
        .innerText()
        .then((text) => text.split("\n")[0]),
      "read_file",
    );
  });

  it("draws the Preview's RenderTree (a collapsible holding a code block) in its region", async (t) => {
    await page
      .getByRole("navigation")
      .getByRole("button", { name: /write_file/ })
      .click();
    await page.getByLabel(/^path/).fill("notes.txt");
    await page.getByLabel(/^content/).fill("hello from the preview");
    await page.getByRole("button", { name: "Preview" }).click();
    const region = page.getByLabel("main chat region");
    await region.waitFor();
    assert.match(
      await region.locator("details.rt-collapsible > summary").innerText(),
      new RegExp(`Create ${dir.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}/notes\\.txt \\(22 bytes\\)`),
    );
    assert.equal(await region.locator(".rt-codeblock code").innerText(), "hello from the preview");
    // Preview does not write.
    assert.equal((await import("node:fs")).existsSync(path.join(dir, "notes.txt")), false);
    await shoot(t, page, "preview-render-tree");
  });

  it("offers Preview only on the tools that have one, before any is tried", async () => {
    const nav = page.getByRole("navigation");
    for (const [name, preview] of [
      ["read_file", 0],
      ["write_file", 1],
      ["edit_file", 1],
    ] as const) {
      await nav.getByRole("button", { name: new RegExp(`^${name}`) }).click();
      await page.getByLabel(`tool ${name}`).waitFor();
      assert.equal(await page.getByRole("button", { name: "Preview" }).count(), preview, name);
    }
  });
});

describe("inspect: the web example's sensitive api_key", { skip }, () => {
  const secret = "sk-inspect-SECRET-7f3a9c";
  const second = "sk-second-SECRET-51d2e8";
  let dir = "";
  let api: Server;
  let inspector: RunningInspector;
  let page: Page;
  const seen: string[] = [];
  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "harness-tool-inspect-web-"));
    // A search API that echoes the bearer token back, as a careless API could.
    api = createServer((req, res) => {
      const auth = req.headers.authorization ?? "";
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({ results: [{ title: `token ${auth}`, url: "http://example.test/", snippet: auth.slice(7) }] }),
      );
    });
    await new Promise<void>((resolve) => api.listen(0, "127.0.0.1", resolve));
    const endpoint = `http://127.0.0.1:${(api.address() as AddressInfo).port}/search`;
    inspector = await startInspector(example("web"), {
      dir,
      config: { api_key: secret, endpoint, allowed_domains: ["example.test"] },
    });
    page = await openPage(inspector.url);
    page.on("response", async (response) => {
      if (!response.url().includes("/events")) seen.push(await response.text().catch(() => ""));
    });
  });
  after(async () => {
    await page?.close();
    await inspector?.stop();
    api?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function everythingShown(): Promise<string> {
    const inPage = await page.evaluate<string>(`(() => {
      const values = [...document.querySelectorAll("input, textarea, select")].map((e) => e.value);
      return [document.documentElement.outerHTML, document.body.innerText, ...values].join("\\n");
    })()`);
    const state = await (await fetch(new URL("api/state", inspector.url))).text();
    return `${inPage}\n${state}\n${seen.join("\n")}`;
  }

  it("never shows the configured secret: masked config, redacted results", async (t) => {
    await page
      .getByRole("navigation")
      .getByRole("button", { name: /web_search/ })
      .click();
    await page.getByLabel(/^query/).fill("harness");
    await page.getByRole("button", { name: "Invoke" }).click();
    await page.locator('.call[data-state="result"]').waitFor();
    assert.match(await page.getByLabel("result payload").innerText(), /token Bearer \[REDACTED\]/);
    await page
      .getByRole("navigation")
      .getByRole("button", { name: /Configure/ })
      .click();
    assert.match(await page.getByLabel("current config").innerText(), /"api_key": "\[REDACTED\]"/);
    assert.equal(await page.locator('input[name="api_key"]').getAttribute("type"), "password");
    assert.equal(await page.locator('input[name="api_key"]').inputValue(), "");
    await shoot(t, page, "configure-masked");
    assert.doesNotMatch(await everythingShown(), new RegExp(secret));
  });

  it("keeps a secret typed into Configure out of the page after sending it", async () => {
    await page.locator('input[name="api_key"]').fill(second);
    const configured = page.waitForResponse((response) => response.url().endsWith("/api/configure"));
    await page.getByRole("button", { name: "Send Configure" }).click();
    assert.equal((await configured).status(), 200);
    // The form is drawn anew from the masked config once Configure answers: the field is empty again.
    await page.getByRole("button", { name: "Send Configure" }).and(page.locator(":enabled")).waitFor();
    assert.equal(await page.locator('input[name="api_key"]').inputValue(), "");
    assert.match(await page.getByLabel("config status").innerText(), /Configure accepted/);
    await page
      .getByRole("navigation")
      .getByRole("button", { name: /web_search/ })
      .click();
    await page.getByRole("button", { name: "Invoke" }).click();
    await historyRow(page, 2);
    await page.locator('.call[data-state="result"]').waitFor();
    assert.match(await page.getByLabel("result payload").innerText(), /token Bearer \[REDACTED\]/);
    const shown = await everythingShown();
    assert.doesNotMatch(shown, new RegExp(secret));
    assert.doesNotMatch(shown, new RegExp(second));
  });

  it("keeps the secret when Configure is sent with the field left empty", async () => {
    await page
      .getByRole("navigation")
      .getByRole("button", { name: /Configure/ })
      .click();
    assert.equal(
      await page.locator('input[name="api_key"]').getAttribute("placeholder"),
      "set (leave empty to keep it)",
    );
    await page.getByRole("button", { name: "Send Configure" }).click();
    await page.getByLabel("config status").filter({ hasText: "accepted" }).waitFor();
    assert.match(await page.getByLabel("current config").innerText(), /"api_key": "\[REDACTED\]"/);
  });
});

describe("inspect: the agent example's kernel callbacks", { skip }, () => {
  let dir = "";
  let inspector: RunningInspector;
  let page: Page;
  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "harness-tool-inspect-agent-"));
    inspector = await startInspector(example("agent"), { dir, config: { profile: "reviewer" } });
    page = await openPage(inspector.url);
  });
  after(async () => {
    await page?.close();
    await inspector?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("answers RunSession with the canned reply, shows the callback, and uses an edited reply", async (t) => {
    await page.getByLabel(/^prompt/).fill("Review the change");
    await page.getByRole("button", { name: "Invoke" }).click();
    await page.locator('.call[data-state="result"]').waitFor();
    assert.match(await page.getByLabel("result payload").innerText(), /A canned answer from harness-tool inspect\./);
    await page.getByRole("tab", { name: /Kernel callbacks/ }).click();
    const callbacks = page.getByLabel("kernel callbacks");
    await callbacks.locator("li").filter({ hasText: "runSession" }).first().waitFor();
    assert.match(await callbacks.innerText(), /runSession Review the change/);
    const reply = page.locator('textarea[name="reply-runSession"]');
    await reply.fill(
      JSON.stringify({
        sessionId: "sub-2",
        status: "SESSION_STATUS_COMPLETED",
        finalMessage: { role: "ROLE_ASSISTANT", content: [{ text: { text: "an edited answer" } }] },
      }),
    );
    await page.getByRole("button", { name: "Save replies" }).click();
    await page.getByText("The kernel answers with these replies from now on.").waitFor();
    await page.getByRole("tab", { name: /History/ }).click();
    await page.getByLabel("history").locator("tbody tr").first().getByRole("button", { name: "Re-run" }).click();
    await historyRow(page, 2);
    await page.locator('.call[data-state="result"]').waitFor();
    assert.match(await page.getByLabel("result payload").innerText(), /an edited answer/);
    await page.getByRole("tab", { name: /Kernel callbacks/ }).click();
    await page.locator('textarea[name="reply-countTokens"]').fill('{"count": "many"}');
    await page.getByRole("button", { name: "Save replies" }).click();
    await page.getByText(/countTokens reply is not a pluggableharness.kernel.v1.CountTokensResult/).waitFor();
    await shoot(t, page, "kernel-callbacks");
    assert.deepEqual(pageProblems(page), []);
  });
});

describe("inspect: Render, Emit and Log callbacks, stderr log lines", { skip }, () => {
  let dir = "";
  let inspector: RunningInspector;
  let page: Page;
  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "harness-tool-inspect-render-"));
    inspector = await startInspector(path.join(repoRoot, "test/cli/fixtures/render-provider.ts"), { dir });
    page = await openPage(inspector.url);
  });
  after(async () => {
    await page?.close();
    await inspector?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("shows the Log and Emit callbacks with the numbered reply, and the stderr line at its host level", async (t) => {
    await page.getByLabel(/^title/).fill("Weekly");
    await page.getByRole("button", { name: "Invoke" }).click();
    await page.locator('.call[data-state="result"]').waitFor();
    assert.match(await page.getByLabel("result payload").innerText(), /"emitted": "event-1"/);
    await page.getByRole("tab", { name: /Logs/ }).click();
    const line = page.getByLabel("log lines").locator("li", { hasText: "the report Weekly is a test" });
    await line.waitFor();
    assert.match(await line.innerText(), /warn the report Weekly is a test/);
    await page.getByRole("tab", { name: /Kernel callbacks/ }).click();
    const callbacks = page.getByLabel("kernel callbacks");
    await callbacks.locator("li", { hasText: "emit" }).waitFor();
    assert.match(await callbacks.innerText(), /log LOG_LEVEL_INFO building the report/);
    assert.match(await callbacks.innerText(), /emit EVENT_KIND_TOOL_RESULT report\/v1/);
    await shoot(t, page, "callbacks-and-logs");
  });

  it("draws an emitted payload through Render: every node kind, as a region shows it", async (t) => {
    const emitted = page.getByLabel("kernel callbacks").locator("li", { hasText: "emit" });
    await emitted.locator("summary").click();
    await emitted.getByRole("button", { name: "Render this payload" }).click();
    const region = emitted.getByLabel("sidebar region");
    await region.waitFor();
    assert.equal(await region.locator(".rt-text.rt-bold").first().innerText(), "Weekly");
    assert.equal(await region.locator(".rt-codeblock code").innerText(), "const answer = 42;");
    assert.equal(await region.locator(".rt-codeblock figcaption").innerText(), "ts");
    assert.deepEqual(await region.locator(".rt-diff span").allInnerTexts(), [
      "@@ -1,2 +1,2 @@",
      " keep\n",
      "-old line\n",
      "+new line\n",
    ]);
    assert.deepEqual(await region.locator(".rt-diff .rt-add").allInnerTexts(), ["+new line\n"]);
    assert.deepEqual(await region.locator(".rt-table td").allInnerTexts(), ["a.ts", "10", "b.ts", "20"]);
    assert.equal(
      await region.getByRole("link", { name: "the docs" }).getAttribute("href"),
      "https://example.test/docs",
    );
    assert.equal(
      await region.getByRole("link", { name: "a script link" }).count(),
      0,
      "a javascript: URL is not a link",
    );
    assert.deepEqual(await region.locator("ol.rt-list > li").allInnerTexts(), ["first", "second"]);
    assert.equal(await region.locator("details.rt-collapsible").getAttribute("open"), null, "collapsed by default");
    assert.equal(await region.getByText("hidden until opened").isVisible(), false);
    assert.match(await region.locator(".rt-subsession").innerText(), /sub-session sub-7 a sub-agent/);
    assert.equal(await region.getByRole("button", { name: "Retry" }).isDisabled(), true);
    await shoot(t, page, "render-tree");
  });

  it("renders from the Render view, and shows the provider's error for an unknown schema_version", async () => {
    await page.getByRole("navigation").getByRole("button", { name: "Render" }).click();
    await page.locator('input[name="schema_version"]').fill("report/v1");
    await page.locator('textarea[name="payload"]').fill("Monthly");
    await page.getByRole("button", { name: "Render", exact: true }).last().click();
    await page.getByLabel("main chat region").locator(".rt-bold", { hasText: "Monthly" }).waitFor();
    await page.locator('input[name="schema_version"]').fill("report/v9");
    await page.getByLabel("render").getByRole("button", { name: "Render" }).click();
    const error = page.getByLabel("render").getByRole("alert");
    await error.waitFor();
    assert.match(await error.innerText(), /no renderer for schema_version "report\/v9"/);
  });
});

describe("inspect: Configure from the config schema", { skip }, () => {
  let dir = "";
  let inspector: RunningInspector;
  let page: Page;
  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "harness-tool-inspect-configure-"));
    inspector = await startInspector(example("exec"), { dir });
    page = await openPage(inspector.url);
  });
  after(async () => {
    await page?.close();
    await inspector?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("opens on Configure when the first one was rejected, and sends a list and a map from the form", async (t) => {
    const status = page.getByLabel("config status");
    assert.match(await status.innerText(), /Configure rejected/);
    // The rejected values are not the current config: none is in force yet.
    assert.match(await page.getByLabel("current config").innerText(), /None accepted yet/);
    assert.deepEqual(JSON.parse(await page.getByLabel("rejected config").innerText()), {});
    // The same type names as the tool forms (string[], not list_string).
    const form = await page.getByLabel("configure").innerText();
    assert.match(form, /allowed_roots\s*\*\s*string\[\]/);
    assert.match(form, /env\s*map<string, string>/);
    await page.locator('textarea[name="allowed_roots"]').fill(`${dir}\n/tmp`);
    await page.locator('textarea[name="env"]').fill("GREETING=hello there\nEMPTY=");
    await page.getByRole("button", { name: "Send Configure" }).click();
    await status.filter({ hasText: "Configure accepted" }).waitFor();
    assert.deepEqual(JSON.parse(await page.getByLabel("current config").innerText()), {
      allowed_roots: [dir, "/tmp"],
      env: { GREETING: "hello there", EMPTY: "" },
    });
    assert.equal(await page.getByLabel("rejected config").count(), 0);
    await shoot(t, page, "configure");
    // A rejected Configure leaves the accepted config in force, and the form keeps what was refused.
    await page.locator('textarea[name="allowed_roots"]').fill("not/absolute");
    await page.getByRole("button", { name: "Send Configure" }).click();
    await status.filter({ hasText: "Configure rejected" }).waitFor();
    assert.deepEqual(JSON.parse(await page.getByLabel("current config").innerText()), {
      allowed_roots: [dir, "/tmp"],
      env: { GREETING: "hello there", EMPTY: "" },
    });
    assert.deepEqual(JSON.parse(await page.getByLabel("rejected config").innerText()).allowed_roots, ["not/absolute"]);
    assert.equal(await page.locator('textarea[name="allowed_roots"]').inputValue(), "not/absolute");
    await page.getByRole("navigation").getByRole("button", { name: /bash/ }).click();
    await page.getByLabel(/^command/).fill('echo "$GREETING"');
    await page.getByRole("button", { name: "Invoke" }).click();
    await page.locator('.call[data-state="result"]').waitFor();
    assert.equal(await page.locator(".terminal").innerText(), "hello there\n");
  });
});

describe("inspect: a provider that exits mid-session, restarted from the page", { skip }, () => {
  let dir = "";
  let buildFile = "";
  let inspector: RunningInspector;
  let page: Page;
  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "harness-tool-inspect-restart-"));
    buildFile = path.join(dir, "build.txt");
    writeFileSync(buildFile, "1.0.0");
    inspector = await startInspector(path.join(repoRoot, "test/cli/fixtures/restart-provider.ts"), {
      dir,
      providerArgs: [buildFile],
    });
    page = await openPage(inspector.url);
  });
  after(async () => {
    await page?.close();
    await inspector?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("turns the badge off with the reason, says so on the terminal, and Restart runs the rebuilt provider", async (t) => {
    const status = page.getByLabel("provider status");
    assert.equal(await status.innerText(), "live");
    assert.match(await page.locator("header.identity").innerText(), /restartable\s+1\.0\.0/);
    // The provider dies in the middle of a call.
    await page
      .getByRole("navigation")
      .getByRole("button", { name: /stop_now/ })
      .click();
    await page.getByRole("button", { name: "Invoke" }).click();
    await status.filter({ hasText: "exited" }).waitFor();
    const reason = await page.getByLabel("provider exited").innerText();
    assert.match(reason, /the provider exited with code 3 \(last error: stop_now: ending the process as asked\)/);
    assert.equal(await status.getAttribute("title"), reason.replace(/^\s*·\s*/, ""));
    await page.locator('.call[data-state]:not([data-state="running"])').waitFor();
    assert.match(
      await page.locator(".call").innerText(),
      /the RPC failed before a terminal event: the provider exited during the call/,
    );
    assert.match(
      inspector.errors(),
      /harness-tool inspect: the provider exited with code 3 \(last error: stop_now: ending the process as asked\); the page's Restart launches it again/,
    );
    await shoot(t, page, "provider-exited");
    // An author's edit loop: rebuild, restart, re-run; a build that does not start says why.
    writeFileSync(buildFile, "broken");
    await page.getByRole("button", { name: "Restart provider" }).click();
    await page.getByLabel("provider exited").filter({ hasText: "the restart failed" }).waitFor();
    assert.match(
      await page.getByLabel("provider exited").innerText(),
      /the restart failed: the provider did not start: [\s\S]*this build is broken/,
    );
    assert.equal(await status.innerText(), "exited");
    assert.match(
      inspector.errors(),
      /harness-tool inspect: the restart failed: the provider did not start: .*; fix it and Restart from the page again/,
    );
    writeFileSync(buildFile, "2.0.0");
    await page.getByRole("button", { name: "Restart provider" }).click();
    await status.filter({ hasText: "live" }).waitFor();
    assert.match(await page.locator("header.identity").innerText(), /restartable\s+2\.0\.0/);
    assert.match(
      inspector.errors(),
      /harness-tool inspect: restarted the provider: \S+ .*restart-provider\.ts \S+build\.txt \(pid \d+\)/,
    );
    // The new build has no stop_now: the main pane moves to the first tool instead of staying empty.
    await page.getByLabel("tool which_build").waitFor();
    assert.equal(
      await page
        .getByRole("navigation")
        .getByRole("button", { name: /stop_now/ })
        .count(),
      0,
    );
    await page.getByRole("button", { name: "Invoke" }).click();
    await page.locator('.call[data-state="result"]').waitFor();
    assert.match(await page.getByLabel("result", { exact: true }).innerText(), /"build": "2\.0\.0"/);
    // The history of the first process stays.
    assert.match(await page.getByLabel("history").innerText(), /stop_now[\s\S]*which_build|which_build[\s\S]*stop_now/);
    assert.deepEqual(pageProblems(page), []);
  });
});
