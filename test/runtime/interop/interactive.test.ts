/**
 * An interactive tool on the frontend protocol's path, through the real go-plugin v1.8.0 host
 * playing the kernel's part (the kernel's client configuration): examples/user launched
 * without a controlling terminal (setsid, as a kernel run by a service manager starts it), its
 * prompt fetched with Preview, a person's answer checked against the output schema GetSchema
 * advertised, as the kernel must before the answer becomes ToolResult.payload. The kernel
 * snapshot has no code for the interactive path yet (nothing sends InteractiveRequest or reads
 * InteractiveResponse), so the kernel's steps here are the spec's, played by the test.
 */
import assert from "node:assert/strict";
import { after, before, describe } from "node:test";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import {
  PreviewRequestSchema,
  PreviewResponseSchema,
  ToolErrorCategory,
  ToolKind,
  RiskClass,
} from "harness-tool/generated/pluggableharness/tool/v1/tool_pb.js";
import { jsonSchemaFromWire, validatorFor, type JsonSchema } from "harness-tool/schema";
import { renderTreeText } from "harness-tool";
import { hostLabels, scenario, skipFor, start, type Harness } from "./host-matrix.js";
import { exampleProviders } from "./providers.js";
import { b64 } from "./go-host.js";
import { callContext } from "./scenarios.js";

const user = exampleProviders().find((p) => p.name === "examples/user");
if (!user) throw new Error("examples/user has no src/main.ts");
/** The example in a session of its own: no controlling terminal, whoever runs the tests. */
const withoutTerminal = {
  ...user,
  name: "examples/user without a terminal",
  command: "/usr/bin/setsid",
  args: [user.command, ...user.args],
};
const call = {
  id: "ask-1",
  toolName: "ask_user",
  arguments: { question: "Deploy now?", choices: ["yes", "no"] },
  callContext: callContext("s-ask"),
};

for (const id of ["go"] as const) {
  describe(`${hostLabels[id]} × an interactive call on the frontend's path`, { skip: skipFor(id) }, () => {
    let h: Harness;
    before(async () => {
      h = await start(id, withoutTerminal);
    });
    after(() => h?.close());

    /** Preview as the kernel calls it: through the host's connection, the response decoded from its bytes. */
    async function preview() {
      assert.ok(h.go, "a Go host");
      const request = toBinary(PreviewRequestSchema, create(PreviewRequestSchema, { call }));
      const result = await h.go.request({
        op: "unary",
        method: "/pluggableharness.tool.v1.ToolService/Preview",
        request: b64(request),
      });
      assert.equal(result.code, 0, String(result.message));
      return fromBinary(PreviewResponseSchema, Buffer.from(String(result.response), "base64")).preview;
    }

    scenario(id, "GetSchema: ask_user is interactive and read_only, with no concurrency", async () => {
      const tool = (await h.host.getSchema()).tools.find((t) => t.name === "ask_user");
      assert.equal(tool?.kind, ToolKind.INTERACTIVE);
      assert.equal(tool?.risk, RiskClass.READ_ONLY);
      assert.equal(tool?.concurrency, undefined);
      assert.equal((await h.host.configure({})).code, 0);
    });

    scenario(
      id,
      "the prompt is Preview's RenderTree, and a person's answer is checked against output_schema",
      async () => {
        const prompt = await preview();
        assert.ok(prompt, "Preview answers with a RenderTree: InteractiveRequest.prompt's type");
        assert.equal(renderTreeText(prompt), "Deploy now?\n- yes\n- no");
        // The kernel's part: InteractiveResponse.response becomes ToolResult.payload once it conforms.
        const tool = (await h.host.getSchema()).tools.find((t) => t.name === "ask_user");
        const check = validatorFor(jsonSchemaFromWire(tool!.outputSchema!) as unknown as JsonSchema);
        assert.deepEqual(check({ answer: "yes" }), []);
        assert.deepEqual(
          check({ answer: 7 }).map((v) => v.path),
          ["/answer"],
        );
      },
    );

    scenario(id, "Invoke without a terminal: one execution_failed error naming the frontend's path", async () => {
      const outcome = await h.host.invoke(call);
      assert.equal(outcome.events.length, 1);
      const [event] = outcome.events;
      assert.equal(event?.event.case, "error");
      if (event?.event.case !== "error") return;
      assert.equal(event.event.value.category, ToolErrorCategory.EXECUTION_FAILED);
      assert.match(
        event.event.value.message,
        /no terminal to ask on: under the kernel a person answers an interactive call through its frontend/,
      );
      await h.host.ping();
    });
  });
}
