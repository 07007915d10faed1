// examples/filesystem's writes when the kernel cancels them: the handler reports what is on disk
// through ctx.reportCancelled (its Log reaches the kernel after a cancel; the stream does not).
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import type { CancelReport } from "harness-tool";
import { handlers } from "../../examples/filesystem/src/handlers.js";

describe("examples/filesystem when cancelled", () => {
  const root = mkdtempSync(path.join(tmpdir(), "harness-tool-fs-cancel-"));
  after(() => rmSync(root, { recursive: true, force: true }));

  it("write_file stopped before it wrote: reports that the file does not exist, then fails", async () => {
    const reports: CancelReport[] = [];
    const file = path.join(root, "never.txt");
    const context = {
      signal: AbortSignal.abort(),
      resolvePath: (p: string) => path.resolve(root, p),
      reportCancelled: async (report: CancelReport) => void reports.push(report),
    };
    await assert.rejects(handlers.writeFile({ path: "never.txt", content: "hello" }, context as never), {
      name: "AbortError",
    });
    assert.equal(existsSync(file), false);
    assert.deepEqual(reports, [
      {
        message: `the write to ${file} was stopped; the file does not exist`,
        details: { path: file, created_by_this_call: false, bytes_on_disk: null },
      },
    ]);
  });
});
