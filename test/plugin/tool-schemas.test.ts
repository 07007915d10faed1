// A generated `fooToolSchemas()` lists exactly what the running provider's GetSchema returns.
import assert from "node:assert/strict";
import { it } from "node:test";
import { equals } from "@bufbuild/protobuf";
import { ToolSchemaSchema } from "../../generated/pluggableharness/tool/v1/tool_pb.js";
import { createToolService } from "../../runtime/service/calls/index.js";
import {
  createFilesystemProvider,
  filesystemToolSchemas,
} from "../../examples/filesystem/src/gen/examples/filesystem/v1/filesystem_tool.js";
import { handlers } from "../../examples/filesystem/src/handlers.js";

it("filesystemToolSchemas() equals GetSchema's tools", () => {
  const served = createToolService(createFilesystemProvider(handlers), { stderr: () => {} }).getSchema().tools;
  const generated = filesystemToolSchemas();
  assert.equal(generated.length, served.length);
  generated.forEach((tool, i) => {
    assert.ok(equals(ToolSchemaSchema, tool, served[i]!), `${tool.name} differs from GetSchema's`);
  });
  assert.deepEqual(
    generated.map((t) => t.name),
    ["read_file", "write_file", "edit_file"],
  );
});
