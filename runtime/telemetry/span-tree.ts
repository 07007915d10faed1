/**
 * Spans as an indented tree, the way `harness-tool invoke --trace` prints them: children under
 * their parent in start order, each with its kind, duration and the attributes that say what
 * happened (the rpc.system/service/method triple is the name already, so it is left out).
 */
import type { ReceivedSpan, ReceivedValue } from "./otlp-trace-request.js";

const kindNames = ["unspecified", "internal", "server", "client", "producer", "consumer"];
const impliedByName = new Set(["rpc.system", "rpc.service", "rpc.method"]);

function describe(span: ReceivedSpan): string {
  const ms = Number(span.endTimeUnixNano - span.startTimeUnixNano) / 1e6;
  const attributes = Object.entries(span.attributes)
    .filter(([key]) => !impliedByName.has(key))
    .map(([key, value]: [string, ReceivedValue]) => `${key}=${typeof value === "string" ? value : String(value)}`);
  const status = span.statusCode === 2 ? " ERROR" : "";
  return `${span.name} [${kindNames[span.kind] ?? span.kind}] ${ms.toFixed(1)} ms${status}${attributes.length > 0 ? `  ${attributes.join(" ")}` : ""}`;
}

/**
 * The lines of the tree of `spans`. A span whose parent is not among them is a root; `rootLabel`
 * names what such a parent is (e.g. the CLI's own call).
 */
export function formatSpanTree(
  spans: readonly ReceivedSpan[],
  rootLabel?: (parentSpanId: string) => string | undefined,
): string[] {
  const ids = new Set(spans.map((s) => s.spanId));
  const children = new Map<string, ReceivedSpan[]>();
  for (const span of spans) {
    const parent = ids.has(span.parentSpanId) ? span.parentSpanId : "";
    const list = children.get(parent) ?? [];
    list.push(span);
    children.set(parent, list);
  }
  for (const list of children.values())
    list.sort((a, b) =>
      a.startTimeUnixNano < b.startTimeUnixNano ? -1 : a.startTimeUnixNano > b.startTimeUnixNano ? 1 : 0,
    );
  const lines: string[] = [];
  const walk = (span: ReceivedSpan, prefix: string, last: boolean, top: boolean): void => {
    lines.push(top ? describe(span) : `${prefix}${last ? "└─ " : "├─ "}${describe(span)}`);
    const below = children.get(span.spanId) ?? [];
    const childPrefix = top ? "" : `${prefix}${last ? "   " : "│  "}`;
    below.forEach((child, i) => {
      walk(child, childPrefix, i === below.length - 1, false);
    });
  };
  for (const root of children.get("") ?? []) {
    const label = root.parentSpanId === "" ? undefined : rootLabel?.(root.parentSpanId);
    if (label !== undefined) lines.push(label);
    walk(root, "", true, label === undefined);
  }
  return lines;
}
