// A RenderTree (protobuf JSON of pluggableharness.render.v1) drawn as a frontend's region would
// show it: styled text, code blocks, unified diffs, tables, links, lists, groups, collapsibles,
// sub-session references and actions. Unknown node kinds are shown as their JSON, not dropped.
import type { Json, RenderTreeJson } from "../protocol/page-protocol.js";

type Node = { readonly [key: string]: Json };

function asNode(value: Json | undefined): Node {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? value : {};
}
function asList(value: Json | undefined): Json[] {
  return Array.isArray(value) ? value : [];
}
function asText(value: Json | undefined): string {
  return typeof value === "string" ? value : "";
}

const styleClasses: { readonly [style: string]: string } = {
  TEXT_STYLE_BOLD: "rt-bold",
  TEXT_STYLE_ITALIC: "rt-italic",
  TEXT_STYLE_CODE: "rt-code",
  TEXT_STYLE_DIM: "rt-dim",
  TEXT_STYLE_ERROR: "rt-error",
  TEXT_STYLE_WARNING: "rt-warning",
  TEXT_STYLE_SUCCESS: "rt-success",
};

const diffMarks: { readonly [op: string]: [string, string] } = {
  DIFF_LINE_OP_ADD: ["+", "rt-add"],
  DIFF_LINE_OP_REMOVE: ["-", "rt-remove"],
  DIFF_LINE_OP_CONTEXT: [" ", "rt-context"],
};

/** Only web addresses become links; anything else (javascript:, file:) is shown as text. */
function safeHref(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return parsed.protocol === "http:" || parsed.protocol === "https:" || parsed.protocol === "mailto:"
      ? parsed.href
      : undefined;
  } catch {
    return undefined;
  }
}

function Children({ nodes }: { nodes: Json[] }) {
  return (
    <>
      {nodes.map((n, i) => (
        <RenderNodeView key={i} node={asNode(n)} />
      ))}
    </>
  );
}

/** A diff's hunks, each line marked as the kernel's regions mark it. */
function diffView(v: Node) {
  return (
    <div class="rt-diff">
      {asList(v["hunks"]).map((h, i) => {
        const hunk = asNode(h);
        const n = (key: string) => (typeof hunk[key] === "number" ? (hunk[key] as number) : 0);
        return (
          <pre key={i}>
            <span class="rt-hunk">{`@@ -${n("oldStart")},${n("oldLines")} +${n("newStart")},${n("newLines")} @@`}</span>
            {"\n"}
            {asList(hunk["lines"]).map((l, j) => {
              const line = asNode(l);
              const [mark, cls] = diffMarks[asText(line["op"])] ?? [" ", "rt-context"];
              return <span key={j} class={cls}>{`${mark}${asText(line["text"])}\n`}</span>;
            })}
          </pre>
        );
      })}
    </div>
  );
}

/** A table: its headers and rows. */
function tableView(v: Node) {
  return (
    <table class="rt-table">
      <thead>
        <tr>
          {asList(v["headers"]).map((h, i) => (
            <th key={i}>{asText(h)}</th>
          ))}
        </tr>
      </thead>
      <tbody>
        {asList(v["rows"]).map((r, i) => (
          <tr key={i}>
            {asList(asNode(r)["cells"]).map((c, j) => (
              <td key={j}>{asText(c)}</td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** One RenderNode. */
export function RenderNodeView({ node }: { node: Node }) {
  const [kind] = Object.keys(node);
  const v = asNode(kind === undefined ? undefined : node[kind]);
  switch (kind) {
    case "text":
      return <span class={`rt-text ${styleClasses[asText(v["style"])] ?? ""}`}>{asText(v["content"])}</span>;
    case "codeBlock":
      return (
        <figure class="rt-codeblock">
          {v["language"] ? <figcaption>{asText(v["language"])}</figcaption> : null}
          <pre>
            <code>{asText(v["content"])}</code>
          </pre>
        </figure>
      );
    case "diff":
      return diffView(v);
    case "table":
      return tableView(v);
    case "link": {
      const href = safeHref(asText(v["url"]));
      const text = asText(v["text"]) || asText(v["url"]);
      return href ? (
        <a class="rt-link" href={href} target="_blank" rel="noopener noreferrer">
          {text}
        </a>
      ) : (
        <span class="rt-link rt-dim" title={asText(v["url"])}>
          {text}
        </span>
      );
    }
    case "list": {
      const items = asList(v["items"]).map((n, i) => (
        <li key={i}>
          <RenderNodeView node={asNode(n)} />
        </li>
      ));
      return v["ordered"] === true ? <ol class="rt-list">{items}</ol> : <ul class="rt-list">{items}</ul>;
    }
    case "group":
      return (
        <div class="rt-group">
          <Children nodes={asList(v["children"])} />
        </div>
      );
    case "collapsible":
      return (
        <details class="rt-collapsible" open={v["collapsedByDefault"] !== true}>
          <summary>{asText(v["summary"])}</summary>
          <Children nodes={asList(v["children"])} />
        </details>
      );
    case "subSession":
      return (
        <div class="rt-subsession">
          <span class="badge">sub-session</span> <code>{asText(v["sessionId"])}</code> {asText(v["summary"])}
        </div>
      );
    case "action":
      return (
        <button
          type="button"
          class="rt-action"
          disabled
          title={`calls ${asText(v["toolName"])} ${JSON.stringify(v["args"] ?? {})}`}
        >
          {asText(v["label"]) || asText(v["id"])}
        </button>
      );
    default:
      return <pre class="rt-unknown">{JSON.stringify(node, null, 2)}</pre>;
  }
}

/** A whole tree inside a region frame. */
export function RenderTreeView({ tree, region = "main chat" }: { tree: RenderTreeJson; region?: string }) {
  return (
    <section class="region" aria-label={`${region} region`}>
      <header class="region-name">{region} region</header>
      <div class="region-body">
        {tree.root ? <RenderNodeView node={asNode(tree.root)} /> : <span class="rt-dim">(empty tree)</span>}
      </div>
    </section>
  );
}
