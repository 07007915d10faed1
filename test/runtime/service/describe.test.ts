// Describe reports ProducerRef{name, version, source, category TOOL, protocol_version 1}.
import assert from "node:assert/strict";
import { it } from "node:test";
import { Category } from "../../../generated/pluggableharness/common/v1/common_pb.js";
import { createToolService, PROTOCOL_VERSION } from "../../../runtime/service/calls/index.js";
import { echo, providerWith } from "./support/sample-tools.js";

it("Describe reports the provider's identity as a TOOL producer of protocol version 1", () => {
  const service = createToolService(
    providerWith(echo, async (i) => i),
    { stderr: () => {} },
  );
  const producer = service.describe().producer;
  assert.ok(producer);
  assert.equal(producer.name, "test-provider");
  assert.equal(producer.version, "1.2.3");
  assert.equal(producer.source, "github.com/acme/test-provider");
  assert.equal(producer.category, Category.TOOL);
  assert.equal(producer.protocolVersion, 1);
  assert.equal(PROTOCOL_VERSION, 1);
});
