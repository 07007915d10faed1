// The inspector's own redaction: sensitive config values masked whole (nested ones too), the set
// secrets named but never shown, and every secret ever configured redacted from what the page gets,
// with the runtime's rules (raw, JSON-escaped and URL-encoded forms).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { create } from "@bufbuild/protobuf";
import { AttrType, ConfigAttributeSchema } from "../../generated/pluggableharness/config/v1/config_pb.js";
import {
  configAttributesFromWire,
  maskConfig,
  SecretKeeper,
  secretsSet,
} from "../../cli/inspector/server/secret-masking.js";

const attributes = configAttributesFromWire([
  create(ConfigAttributeSchema, { name: "api_key", type: AttrType.STRING, sensitive: true }),
  create(ConfigAttributeSchema, { name: "endpoint", type: AttrType.STRING }),
  create(ConfigAttributeSchema, {
    name: "upstream",
    type: AttrType.OBJECT,
    objectAttributes: [
      create(ConfigAttributeSchema, { name: "tokens", type: AttrType.LIST_STRING, sensitive: true }),
      create(ConfigAttributeSchema, { name: "region", type: AttrType.STRING }),
    ],
  }),
]);

describe("inspect secret masking", () => {
  it("reads the wire config schema into the runtime's declarations", () => {
    assert.deepEqual(
      attributes.map((a) => [a.name, a.type, a.sensitive]),
      [
        ["api_key", "string", true],
        ["endpoint", "string", false],
        ["upstream", "object", false],
      ],
    );
    assert.equal(attributes[2]?.objectAttributes?.[0]?.type, "list_string");
  });

  it("masks sensitive values whole, nested ones included, and names the ones set", () => {
    const config = {
      api_key: "sk-1234567",
      endpoint: "https://x.test",
      upstream: { tokens: ["t-aaaa", "t-bbbb"], region: "eu" },
    };
    assert.deepEqual(maskConfig(attributes, config), {
      api_key: "[REDACTED]",
      endpoint: "https://x.test",
      upstream: { tokens: "[REDACTED]", region: "eu" },
    });
    assert.deepEqual(secretsSet(attributes, config), ["api_key", "upstream.tokens"]);
    assert.deepEqual(secretsSet(attributes, { endpoint: "e" }), []);
  });

  it("redacts every secret configured so far, in every form, from anything shown", () => {
    const keeper = new SecretKeeper();
    assert.deepEqual(keeper.json({ a: "sk-first-1234" }), { a: "sk-first-1234" });
    keeper.remember(attributes, { api_key: "sk-first-1234" });
    keeper.remember(attributes, { api_key: "sk-second-5678", upstream: { tokens: ["tok/en 99"] } });
    const shown = keeper.json({
      message: "key sk-first-1234 then sk-second-5678",
      nested: [{ url: `https://x.test/?k=${encodeURIComponent("tok/en 99")}` }],
      json: JSON.stringify({ key: "sk-second-5678" }),
    });
    assert.deepEqual(shown, {
      message: "key [REDACTED] then [REDACTED]",
      nested: [{ url: "https://x.test/?k=[REDACTED]" }],
      json: '{"key":"[REDACTED]"}',
    });
  });

  it("redacts a secret split across output chunks", () => {
    const keeper = new SecretKeeper();
    keeper.remember(attributes, { api_key: "sk-split-secret" });
    const stream = keeper.redactor.stream();
    const text = [
      stream.push(Buffer.from("before sk-spl")),
      stream.push(Buffer.from("it-secret after")),
      stream.flush(),
    ]
      .map((b) => Buffer.from(b).toString("utf8"))
      .join("");
    assert.equal(text, "before [REDACTED] after");
  });
});
