// The guard's three rules, written over the kernel's payload messages so each can be read (and
// tested) without a running provider: which paths a plan touches outside the root, the messages
// with every secret replaced, and the audit line of a finished tool call.
import path from "node:path";
import { clone, type JsonObject, type JsonValue } from "@bufbuild/protobuf";
import {
  type ContentBlock,
  type Message,
  MessageSchema,
} from "harness-tool/generated/pluggableharness/content/v1/content_pb.js";
import type { PostToolCallPayload } from "harness-tool/generated/pluggableharness/hook/v1/hook_pb.js";
import type { Plan } from "harness-tool/generated/pluggableharness/plan/v1/plan_pb.js";
import { ToolErrorCategory } from "harness-tool/generated/pluggableharness/tool/v1/tool_pb.js";

/**
 * The argument names that hold paths, in the catalog's tools and most others: a string, or a list
 * of strings, under one of these keys at any depth of a plan item's input.
 */
export const pathArgumentNames: ReadonlySet<string> = new Set([
  "path",
  "paths",
  "file",
  "files",
  "file_path",
  "dir",
  "directory",
  "cwd",
  "working_directory",
  "destination",
]);

/** A path a plan item would touch outside the root. */
export interface PathOutside {
  /** PlanItem.id. */
  readonly item: string;
  readonly tool: string;
  /** The argument's name and the path as the plan gives it. */
  readonly argument: string;
  readonly path: string;
}

/** Every path argument of the plan's items that resolves outside `root` (relative paths resolve against it). */
export function pathsOutsideRoot(plan: Plan, root: string): PathOutside[] {
  const outside: PathOutside[] = [];
  for (const item of plan.items) {
    for (const [argument, value] of pathArguments(item.input ?? {})) {
      if (!isInside(root, value)) outside.push({ item: item.id, tool: item.toolName, argument, path: value });
    }
  }
  return outside;
}

/** Lexically inside: `~` is the tool's home folder, never the root's; `..` is followed. */
export function isInside(root: string, candidate: string): boolean {
  if (candidate.startsWith("~")) return false;
  const relative = path.relative(path.resolve(root), path.resolve(root, candidate));
  return relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative));
}

function* pathArguments(value: JsonValue, key = ""): Generator<[string, string]> {
  if (typeof value === "string") {
    if (pathArgumentNames.has(key)) yield [key, value];
  } else if (Array.isArray(value)) {
    for (const element of value) yield* pathArguments(element, key);
  } else if (typeof value === "object" && value !== null) {
    for (const [name, inner] of Object.entries(value as JsonObject)) yield* pathArguments(inner as JsonValue, name);
  }
}

/** What redaction replaces a match with. */
export const redactedMarker = "[REDACTED]";

/**
 * The messages with every match of `patterns` replaced by the marker: in text blocks, in tool
 * results shown back to the model, and in the string arguments of earlier tool calls. Thinking
 * blocks are left alone (their signature covers the text). `count` is how many matches were replaced.
 */
export function redactMessages(
  messages: readonly Message[],
  patterns: readonly RegExp[],
): { messages: Message[]; count: number } {
  let count = 0;
  const redact = (text: string) =>
    patterns.reduce(
      (current, pattern) =>
        current.replace(
          new RegExp(pattern.source, pattern.flags.includes("g") ? pattern.flags : `${pattern.flags}g`),
          () => {
            count++;
            return redactedMarker;
          },
        ),
      text,
    );
  const redactJson = (value: JsonValue): JsonValue => {
    if (typeof value === "string") return redact(value);
    if (Array.isArray(value)) return value.map(redactJson);
    if (typeof value === "object" && value !== null)
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactJson(v as JsonValue)]));
    return value;
  };
  const redactBlocks = (blocks: ContentBlock[]) => {
    for (const block of blocks) {
      const b = block.block;
      if (b.case === "text") b.value.text = redact(b.value.text);
      else if (b.case === "toolResult") redactBlocks(b.value.content);
      else if (b.case === "toolUse" && b.value.arguments)
        b.value.arguments = redactJson(b.value.arguments) as JsonObject;
    }
  };
  const out = messages.map((m) => clone(MessageSchema, m));
  for (const message of out) redactBlocks(message.content);
  return { messages: out, count };
}

/** The audit line of a finished tool call: which call, which tool, how it ended. */
export function auditFields(payload: PostToolCallPayload): JsonObject {
  const call = payload.call;
  const fields: JsonObject = {
    tool: call?.toolName ?? "",
    call_id: call?.id ?? "",
    session_id: call?.callContext?.sessionId ?? "",
    turn_id: call?.callContext?.turnId ?? "",
  };
  if (payload.outcome.case === "error") {
    fields["outcome"] = "error";
    fields["category"] = (
      ToolErrorCategory[payload.outcome.value.category] ?? String(payload.outcome.value.category)
    ).toLowerCase();
  } else {
    fields["outcome"] = payload.outcome.case === "result" ? "result" : "none";
  }
  return fields;
}
