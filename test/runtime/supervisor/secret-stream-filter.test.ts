// The supervisor's byte filter (runtime/supervisor/secret-stream-filter.ts) on its own: every form,
// every split point, overlapping secrets, and nothing held back that cannot start a secret.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { SecretSet, SecretStreamFilter } from "../../../runtime/supervisor/secret-stream-filter.js";

const marker = "[REDACTED]";

function through(secrets: readonly string[], chunks: readonly string[]): { out: string; passed: string[] } {
  const set = new SecretSet();
  set.learn(secrets);
  const filter = new SecretStreamFilter(set);
  const passed = chunks.map((chunk) => filter.push(Buffer.from(chunk)).toString("utf8"));
  return { out: passed.join("") + filter.flush().toString("utf8"), passed };
}

describe("the supervisor's byte filter", () => {
  it("passes bytes unchanged and at once while there is no secret", () => {
    const { out, passed } = through([], ["one\n", "two"]);
    assert.deepEqual(passed, ["one\n", "two"]);
    assert.equal(out, "one\ntwo");
  });

  it("replaces the raw, JSON-escaped (once and twice) and URL-encoded forms", () => {
    const secret = 'p"a ss/é🔑';
    const forms = [
      secret,
      JSON.stringify(secret).slice(1, -1),
      JSON.stringify(JSON.stringify(secret).slice(1, -1)).slice(1, -1),
      encodeURIComponent(secret),
    ];
    for (const form of forms) assert.equal(through([secret], [`a ${form} b\n`]).out, `a ${marker} b\n`, form);
  });

  it("finds a secret split at every byte across two writes, and holds back only a possible beginning", () => {
    const secret = "sk-live-7f3a9c2e";
    const line = `key=${secret};\n`;
    const bytes = Buffer.from(line);
    for (let cut = 0; cut <= bytes.length; cut++) {
      const set = new SecretSet();
      set.learn([secret]);
      const filter = new SecretStreamFilter(set);
      const first = filter.push(bytes.subarray(0, cut)).toString("utf8");
      const out = first + filter.push(bytes.subarray(cut)).toString("utf8") + filter.flush().toString("utf8");
      assert.equal(out, `key=${marker};\n`, `cut at ${cut}`);
      assert.ok(!first.includes("sk-live"), `cut at ${cut}: the first write's output ${JSON.stringify(first)}`);
    }
    // A line that cannot start the secret is not held at all.
    assert.deepEqual(through([secret], ["nothing here\n"]).passed, ["nothing here\n"]);
  });

  it("merges overlapping secrets into one marker and ignores secrets under 4 characters", () => {
    assert.equal(through(["abcdef", "defghi"], ["xabcdefghiy"]).out, `x${marker}y`);
    assert.equal(through(["abc"], ["abc abcd"]).out, "abc abcd");
  });

  it("learns secrets as Configure brings them: the new one from then on, the old ones still", () => {
    const set = new SecretSet();
    set.learn(["first-secret"]);
    const filter = new SecretStreamFilter(set);
    let out = filter.push(Buffer.from("first-secret then ")).toString("utf8");
    set.learn(["second-secret"]);
    out +=
      filter.push(Buffer.from("second-secret and first-secret\n")).toString("utf8") + filter.flush().toString("utf8");
    assert.equal(out, `${marker} then ${marker} and ${marker}\n`);
  });
});
