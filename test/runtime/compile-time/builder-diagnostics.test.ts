// For each `@ts-expect-error` in builder-invalid.ts, hooks-invalid.ts, configure-invalid.ts and service-drift-invalid.ts, removes that one directive and asserts the
// compiler then reports exactly one diagnostic, on the directive's next line, with the expected
// code and a stable message substring. (builder-invalid.ts itself is type-checked under TS 5.9 and
// TS 7 by test/typecheck.test.ts; this table pins down what each error says, with the compiler
// ts-morph bundles.)
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { Project, ts } from "ts-morph";
import { repoRoot } from "../../support/buf.js";

interface Expectation {
  code: number;
  message: string;
}

/** builder-invalid.ts, keyed by the text after `@ts-expect-error`. */
const builderTable: Record<string, Expectation> = {
  "a data_source is read_only": { code: 2322, message: `Type '"high"' is not assignable to type '"read_only"'` },
  "an interactive tool is read_only": { code: 2322, message: `Type '"low"' is not assignable to type '"read_only"'` },
  "a resource is never read_only": {
    code: 2322,
    message: `Type '"read_only"' is not assignable to type 'ResourceRiskName'`,
  },
  "a resource must state its risk": { code: 2345, message: "Property 'risk' is missing" },
  "a resource must declare concurrency": { code: 2345, message: "Property 'concurrency' is missing" },
  "a data_source must declare concurrency": { code: 2345, message: "Property 'concurrency' is missing" },
  "interactive tools never declare concurrency": { code: 2322, message: "interactive tools never declare concurrency" },
  "key fields need safe: true": { code: 2322, message: "keyFields needs concurrency.safe = true" },
  '"size" is not a key of FileInput': {
    code: 2322,
    message: `Type '"size"' is not assignable to type '"path" | "limit"'`,
  },
  "terminatesTurn is for resources": { code: 2322, message: "terminatesTurn is for resource tools only" },
  "idempotent must be stated": { code: 2345, message: "Property 'idempotent' is missing" },
  "kind must be a literal": { code: 2322, message: "kind must be one literal" },
  "streaming must be a literal": { code: 2322, message: "streaming must be the literal true or false" },
  "processBacked must be a literal": { code: 2322, message: "processBacked must be the literal true or false" },
  "a process-backed tool streams": { code: 2322, message: "a processBacked tool streams" },
  "a non-streaming tool's context cannot emit progress": { code: 2339, message: "Property 'progress' does not exist" },
  "a non-streaming tool's context emits no output chunks": {
    code: 2339,
    message: "Property 'output' does not exist",
  },
  "only a process-backed tool's context emits exit_status": {
    code: 2339,
    message: "Property 'exitStatus' does not exist",
  },
  "the result must match the tool's output type": { code: 2322, message: "Property 'content' is missing" },
  "plain does not declare preview": { code: 2322, message: "this tool does not declare preview" },
  "an explicitly typed data_source is read_only too": {
    code: 2322,
    message: `Type '"critical"' is not assignable to type '"read_only"'`,
  },
  "the literal kind must match the type argument": {
    code: 2322,
    message: `Type '"resource"' is not assignable to type '"data_source"'`,
  },
  "preview needs its type argument": { code: 2322, message: "Type 'true' is not assignable to type" },
  "a generated non-streaming tool's context cannot emit progress": {
    code: 2339,
    message: "Property 'progress' does not exist",
  },
  "a generated tool's result must match its output type": { code: 2322, message: "Property 'content' is missing" },
  "a trait is a literal of its own type": { code: 2344, message: "does not satisfy the constraint 'ToolTraits'" },
  "a schema-first input property has its schema's type": {
    code: 2322,
    message: "Type 'number' is not assignable to type 'string'",
  },
  "an optional schema-first input property may be undefined": {
    code: 18048,
    message: "'input.tags' is possibly 'undefined'",
  },
  "a string enum is the union of its values": {
    code: 2367,
    message: `types '"plain" | "markdown" | undefined' and '"html"' have no overlap`,
  },
  "a schema-first output field has its schema's type": {
    code: 2322,
    message: "Type 'string' is not assignable to type 'number'",
  },
  "a required schema-first output field must be returned": { code: 2322, message: "Property 'lines' is missing" },
  "a schema-first data_source is read_only too": {
    code: 2322,
    message: `Type '"high"' is not assignable to type '"read_only"'`,
  },
  '"size" is not a property of the input schema': { code: 2322, message: `Type '"size"' is not assignable to type '"` },
  "a schema-first tool needs a literal schema": {
    code: 2375,
    message: "inputSchema must be a literal schema: write it inline or declare it `as const`",
  },
};

/** hooks-invalid.ts: the hook declarations the types refuse. */
const hooksTable: Record<string, Expectation> = {
  "an observer answers nothing": { code: 2322, message: "is not assignable to type 'ObserveHook<PostToolCallPayload" },
  "a veto is allow or deny": { code: 2322, message: "is not assignable to type 'VetoHook<PlanReadyPayload" },
  "a veto is not a boolean": { code: 2322, message: "is not assignable to type 'VetoHook<PlanReadyPayload" },
  "a veto must decide": { code: 2322, message: "is not assignable to type 'VetoHook<PreToolCallPayload" },
  "nothing at plan-ready may change": { code: 2322, message: `is not assignable to type '"identity"'` },
  "the model is immutable": { code: 2322, message: "Types of property 'model' are incompatible" },
  "a transform returns only the mutable fields": { code: 2322, message: "Types of property 'model' are incompatible" },
  "pre-model-call's transform is a handler": {
    code: 2322,
    message: "is not assignable to type 'TransformHook<PreModelCallPayload",
  },
  "a point needs a mode": { code: 2322, message: `is not assignable to type 'HookSubscription<"session-end"` },
  "context-assemble is not a hook point": {
    code: 2353,
    message: `'"context-assemble"' does not exist in type 'HookSubscriptions`,
  },
  "block is not a mode": { code: 2353, message: "'block' does not exist in type" },
  "a session-start payload has no plan": {
    code: 2339,
    message: "Property 'plan' does not exist on type 'SessionStartPayload'",
  },
  "a listed point needs its subscription": { code: 2741, message: `Property '"post-tool-call"' is missing` },
  "a point the proto does not list": {
    code: 2353,
    message: `'"plan-ready"' does not exist in type 'HookSubscriptionsFor<"pre-tool-call" | "post-tool-call"`,
  },
};

/** configure-invalid.ts: the configure hook's config is typed. */
const configureTable: Record<string, Expectation> = {
  "a hand-written hook's config has the declared attributes only": {
    code: 2551,
    message: "Property 'db_pth' does not exist",
  },
  "a hand-written hook's attribute has its declared type": {
    code: 2322,
    message: "Type 'number | undefined' is not assignable to type 'string | undefined'",
  },
  "a generated hook's config is the proto's config message": {
    code: 2322,
    message: "Type 'string' is not assignable to type 'number'",
  },
};

/** service-drift-invalid.ts: the service types derived from the descriptors refuse a drifted rpc. */
const serviceDriftTable: Record<string, Expectation> = {
  "the transport has no handler for a new rpc": { code: 2741, message: "Property 'cancel' is missing" },
  "the transport's Describe answers a DescribeResponse": {
    code: 2322,
    message: "Types of property 'describe' are incompatible",
  },
  "the transport's Render is unary": {
    code: 2322,
    message: "is not assignable to type 'handleServerStreamingCall<RenderRequest, RenderResponse>'",
  },
  "the transport's Invoke streams": {
    code: 2322,
    message: "is not assignable to type 'handleUnaryCall<InvokeRequest, InvokeResponse>'",
  },
  "a handler of the wrong kind in the table": {
    code: 2322,
    message:
      "Type 'handleUnaryCall<RenderRequest, RenderResponse>' is not assignable to type 'handleServerStreamingCall<InvokeRequest, InvokeResponse>'",
  },
  "the hook transport's DispatchHook is unary": {
    code: 2322,
    message: "Types of property 'dispatchHook' are incompatible",
  },
  "the core does not answer a new rpc": {
    code: 2741,
    message: "Property 'cancel' is missing in type 'ToolServiceCore'",
  },
  "the core's describe answers a DescribeResponse": {
    code: 2322,
    message: "Type 'DescribeResponse' is not assignable to type 'GetSchemaResponse'",
  },
  "the core's render answers once": { code: 2322, message: "Types of property 'render' are incompatible" },
  "the core's invoke streams into a sink": {
    code: 2322,
    message: "Type 'void' is not assignable to type 'InvokeResponse'",
  },
  "the kernel client's log reads no CountTokensResult": {
    code: 2322,
    message: "Type 'void' is not assignable to type 'CountTokensResult'",
  },
  "the kernel client calls unary rpcs only": { code: 2322, message: "Types of property 'log' are incompatible" },
};

/** The `@ts-expect-error` directives of a corpus file, with their lines. */
function corpusOf(file: string) {
  const lines = readFileSync(path.join(repoRoot, "test/runtime/compile-time", file), "utf8").split("\n");
  const directives = lines.flatMap((line, index) => {
    const match = /\/\/ @ts-expect-error (.+)$/.exec(line);
    return match?.[1] ? [{ index, label: match[1].trim() }] : [];
  });
  return { lines, directives };
}

const project = new Project({
  compilerOptions: {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true,
    verbatimModuleSyntax: true,
    // `harness-tool` resolves to this checkout's sources, as in tsconfig.json: without it the generated
    // golden's types come from runtime/dist, which a fresh clone does not have.
    customConditions: ["harness-tool-source"],
    skipLibCheck: true,
    types: ["node"],
    noEmit: true,
  },
});

function flatten(message: string | ts.DiagnosticMessageChain): string {
  return ts.flattenDiagnosticMessageText(message, "\n");
}

for (const [file, table] of [
  ["builder-invalid.ts", builderTable],
  ["hooks-invalid.ts", hooksTable],
  ["configure-invalid.ts", configureTable],
  ["service-drift-invalid.ts", serviceDriftTable],
] as const) {
  const { lines, directives } = corpusOf(file);
  describe(`${file}: compile-time diagnostics`, () => {
    it("has an expectation for every directive in the corpus, and a directive for every expectation", () => {
      const labels = directives.map((d) => d.label);
      assert.deepEqual([...new Set(labels)].sort(), Object.keys(table).sort());
    });

    for (const { index, label } of directives) {
      it(`${label} (line ${index + 2})`, () => {
        const expected = table[label];
        assert.ok(expected, `no expectation for "${label}"`);
        const edited = lines.map((line, i) => (i === index ? "" : line)).join("\n");
        const source = project.createSourceFile(path.join(repoRoot, "test/runtime/compile-time/__case.ts"), edited, {
          overwrite: true,
        });
        try {
          const diagnostics = source.getPreEmitDiagnostics().map((d) => ({
            code: d.getCode(),
            line: d.getLineNumber(),
            message: flatten(d.compilerObject.messageText),
          }));
          assert.equal(diagnostics.length, 1, `expected one diagnostic, got:\n${JSON.stringify(diagnostics, null, 2)}`);
          const [d] = diagnostics;
          assert.ok(d);
          assert.equal(d.line, index + 2, `the error must land on the line after the directive: ${d.message}`);
          assert.equal(d.code, expected.code, d.message);
          assert.ok(d.message.includes(expected.message), `"${d.message}" does not contain "${expected.message}"`);
        } finally {
          project.removeSourceFile(source);
        }
      });
    }
  });
}
