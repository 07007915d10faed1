/**
 * Synthetic tool providers of N tools, as proto files annotated with harness-tool's options, in
 * two layouts: everything in one file, or spread over files of at most ten tools (each with its
 * own messages and its own service). The same tool models also drive the type-check corpora, so
 * every contender describes the same tools.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";

/** Everything in one file, or files of at most `toolsPerFile` tools each. */
export type ProtoLayout = "one-file" | "many-files";

/** The layouts, in report order. */
export const protoLayouts: readonly ProtoLayout[] = ["one-file", "many-files"];

/** Tools per file in the many-files layout. */
export const toolsPerFile = 10;

/** The proto package of the synthetic providers. */
export const syntheticPackage = "bench.synthetic.v1";

/** What a synthetic tool declares, valid under the ToolSchema invariants (runtime/schema/invariants.ts). */
export interface SyntheticTool {
  /** The rpc name, e.g. ReadItem0007. */
  readonly rpc: string;
  /** The wire name (the rpc in snake_case), e.g. read_item0007. */
  readonly name: string;
  /** The rpc name in lowerCamelCase, e.g. readItem0007: the handler's key. */
  readonly handlerKey: string;
  readonly verb: Verb;
  readonly kind: "resource" | "data_source" | "interactive";
  readonly risk: "read_only" | "low" | "moderate" | "high" | "critical";
  /** Absent for interactive tools. */
  readonly concurrency?: { readonly safe: boolean; readonly keyFields?: readonly string[] };
  readonly idempotent: boolean;
  readonly streaming: boolean;
  readonly processBacked: boolean;
  readonly description: string;
}

type Verb = "Read" | "List" | "Search" | "Write" | "Delete" | "Run" | "Ask" | "Fetch";
const verbs: readonly Verb[] = ["Read", "List", "Search", "Write", "Delete", "Run", "Ask", "Fetch"];

/** The N tools of a synthetic provider: kinds, risks and shapes mixed, every declaration valid. */
export function syntheticTools(n: number): SyntheticTool[] {
  const tools: SyntheticTool[] = [];
  for (let i = 0; i < n; i++) {
    const verb = verbs[i % verbs.length] as Verb;
    const suffix = String(i + 1).padStart(4, "0");
    const rpc = `${verb}Item${suffix}`;
    const base = {
      rpc,
      name: `${verb.toLowerCase()}_item${suffix}`,
      handlerKey: `${verb.toLowerCase()}Item${suffix}`,
      verb,
      streaming: false,
      processBacked: false,
    };
    switch (verb) {
      case "Read":
      case "List":
      case "Fetch":
        tools.push({
          ...base,
          kind: "data_source",
          risk: "read_only",
          concurrency: { safe: true },
          idempotent: true,
          description: `${verb}s the items of collection ${suffix} that match the filters.`,
        });
        break;
      case "Search":
        tools.push({
          ...base,
          kind: "data_source",
          risk: "read_only",
          concurrency: { safe: true },
          idempotent: true,
          streaming: true,
          description: `Searches collection ${suffix}, reporting progress as it goes.`,
        });
        break;
      case "Write":
        tools.push({
          ...base,
          kind: "resource",
          risk: "moderate",
          concurrency: { safe: true, keyFields: ["path"] },
          idempotent: true,
          description: `Writes an item of collection ${suffix}; writes to one path are serialized.`,
        });
        break;
      case "Delete":
        tools.push({
          ...base,
          kind: "resource",
          risk: "critical",
          concurrency: { safe: false },
          idempotent: false,
          description: `Deletes the matching items of collection ${suffix}, irreversibly.`,
        });
        break;
      case "Run":
        tools.push({
          ...base,
          kind: "resource",
          risk: "high",
          concurrency: { safe: false },
          idempotent: false,
          streaming: true,
          processBacked: true,
          description: `Runs the job of collection ${suffix} as a child process and streams its output.`,
        });
        break;
      case "Ask":
        tools.push({
          ...base,
          kind: "interactive",
          risk: "read_only",
          idempotent: false,
          description: `Asks the user to choose among the items of collection ${suffix}.`,
        });
        break;
    }
  }
  return tools;
}

const kindEnum = {
  resource: "TOOL_KIND_RESOURCE",
  data_source: "TOOL_KIND_DATA_SOURCE",
  interactive: "TOOL_KIND_INTERACTIVE",
} as const;
const riskEnum = {
  read_only: "RISK_CLASS_READ_ONLY",
  low: "RISK_CLASS_LOW",
  moderate: "RISK_CLASS_MODERATE",
  high: "RISK_CLASS_HIGH",
  critical: "RISK_CLASS_CRITICAL",
} as const;

function rpcText(t: SyntheticTool): string {
  const options = [`kind: ${kindEnum[t.kind]}`, `risk: ${riskEnum[t.risk]}`, `idempotent: ${t.idempotent}`];
  if (t.concurrency) {
    const keys = t.concurrency.keyFields?.length
      ? ` key_fields: [${t.concurrency.keyFields.map((k) => `"${k}"`).join(", ")}]`
      : "";
    options.push(`concurrency: {safe: ${t.concurrency.safe}${keys}}`);
  }
  if (t.processBacked) options.push("process_backed: true");
  else if (t.streaming) options.push("streaming: true");
  options.push("default_timeout: {seconds: 30}");
  return [
    `  // ${t.description}`,
    `  rpc ${t.rpc}(${t.rpc}Request) returns (${t.rpc}Response) {`,
    `    option (harnesstool.v1.tool) = {`,
    ...options.map((o) => `      ${o}`),
    `    };`,
    `  }`,
  ].join("\n");
}

// Field names are single words so that every naming convention (proto, JSON, TS) agrees and the
// hand-written handlers and baselines can use them as they are.
function messagesText(t: SyntheticTool): string {
  return `// The input of ${t.name}.
message ${t.rpc}Request {
  // How the result is rendered.
  enum Format {
    // Not set: the provider's default.
    FORMAT_UNSPECIFIED = 0;
    // Plain text.
    FORMAT_TEXT = 1;
    // One JSON document.
    FORMAT_JSON = 2;
  }

  // A window into a long result.
  message Window {
    // Index of the first entry, from 0.
    int32 offset = 1;
    // Number of entries at most.
    int32 length = 2;
  }

  // One label filter: entries whose label \`key\` equals \`value\`.
  message Filter {
    // The label's name.
    string key = 1;
    // The value it must have.
    string value = 2;
  }

  // Path of the collection, relative to the call's working directory.
  string path = 1;
  // Maximum number of entries to consider.
  int32 limit = 2;
  // Whether to descend into nested collections.
  bool recursive = 3;
  // How the result is rendered.
  Format format = 4;
  // Tags an entry must carry, all of them.
  repeated string tags = 5;
  // Which part of the result to return.
  Window window = 6;
  // Label filters, all of which must match.
  repeated Filter filters = 7;
}

// The result of ${t.name}.
message ${t.rpc}Response {
  // One entry of the result.
  message Entry {
    // The entry's name.
    string name = 1;
    // Its size in bytes.
    int32 size = 2;
  }

  // A one-line summary for the model.
  string summary = 1;
  // Number of entries that matched.
  int32 count = 2;
  // The entries in the window.
  repeated Entry entries = 3;
  // True when more entries matched than the window holds.
  bool truncated = 4;
}`;
}

function fileText(serviceName: string, providerName: string, tools: readonly SyntheticTool[]): string {
  return `// A synthetic tool provider of ${tools.length} tools, written by bench/synthetic-protos.ts.
syntax = "proto3";

package ${syntheticPackage};

import "harnesstool/v1/annotations.proto";

// Synthetic tools over numbered collections, for benchmarking code generation.
service ${serviceName} {
  option (harnesstool.v1.provider) = {
    name: "${providerName}"
    source: "github.com/acme/bench-${providerName}"
  };

${tools.map(rpcText).join("\n\n")}
}

${tools.map(messagesText).join("\n\n")}
`;
}

/** A written proto tree: the folder holding the module and the files, relative to it. */
export interface WrittenProtos {
  readonly moduleDir: string;
  readonly files: readonly string[];
  /** The services (one per file), each a provider. */
  readonly services: readonly {
    readonly name: string;
    readonly file: string;
    readonly tools: readonly SyntheticTool[];
  }[];
}

/** The folder, inside the module, of the synthetic package. */
export const syntheticPackageDir = path.join("bench", "synthetic", "v1");

/** Writes the N-tool provider in `layout` under `moduleDir` (a buf module's root). */
export function writeSyntheticProtos(moduleDir: string, n: number, layout: ProtoLayout): WrittenProtos {
  const tools = syntheticTools(n);
  const dir = path.join(moduleDir, syntheticPackageDir);
  mkdirSync(dir, { recursive: true });
  const groups: SyntheticTool[][] = [];
  if (layout === "one-file") groups.push(tools);
  else for (let i = 0; i < tools.length; i += toolsPerFile) groups.push(tools.slice(i, i + toolsPerFile));
  const services = groups.map((group, i) => {
    const part = layout === "one-file" ? "" : String(i + 1).padStart(3, "0");
    const name = layout === "one-file" ? "SyntheticService" : `SyntheticPart${part}Service`;
    const file = path.join(syntheticPackageDir, layout === "one-file" ? "synthetic.proto" : `part_${part}.proto`);
    writeFileSync(
      path.join(moduleDir, file),
      fileText(name, layout === "one-file" ? "synthetic" : `synthetic_part${part}`, group),
    );
    return { name, file, tools: group };
  });
  return { moduleDir, files: services.map((s) => s.file), services };
}
