/**
 * A RenderTree (what Preview returns, what the approval step shows) as Markdown: text with its
 * style, code blocks, diffs as `diff` blocks, tables, links, lists, groups and collapsibles; a
 * sub-session and an action as one line each. Nothing is dropped: a node this page cannot draw
 * says what it is.
 */
import {
  DiffLineOp,
  type RenderNode,
  type RenderTree,
  TextStyle,
} from "harness-tool/generated/pluggableharness/render/v1/render_pb.js";
import { cell, codeSpan, fence, table } from "./markdown-text.js";

/** Text of one style. */
function styled(content: string, style: TextStyle | undefined): string {
  if (content.trim() === "") return content;
  switch (style) {
    case TextStyle.BOLD:
      return `**${content}**`;
    case TextStyle.ITALIC:
    case TextStyle.DIM:
      return `*${content}*`;
    case TextStyle.CODE:
      return codeSpan(content);
    default:
      return content;
  }
}

const diffMarks: { readonly [op: number]: string } = {
  [DiffLineOp.ADD]: "+",
  [DiffLineOp.REMOVE]: "-",
  [DiffLineOp.CONTEXT]: " ",
};

/** One node as Markdown blocks. */
function nodeMarkdown(node: RenderNode | undefined): string {
  const n = node?.node;
  switch (n?.case) {
    case "text":
      return styled(n.value.content, n.value.style);
    case "codeBlock":
      return fence(n.value.language ?? "", n.value.content);
    case "diff":
      return fence(
        "diff",
        n.value.hunks
          .map((h) =>
            [
              `@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`,
              ...h.lines.map((l) => `${diffMarks[l.op] ?? " "}${l.text}`),
            ].join("\n"),
          )
          .join("\n"),
      );
    case "table":
      return table(
        n.value.headers.map(cell),
        n.value.rows.map((row) => n.value.headers.map((_, i) => cell(row.cells[i] ?? ""))),
      );
    case "link":
      return `[${n.value.text.replace(/[[\]]/g, "\\$&")}](<${n.value.url}>)`;
    case "list":
      return n.value.items
        .map((item, i) => `${n.value.ordered ? `${i + 1}.` : "-"} ${nodeMarkdown(item).replace(/\n/g, "\n   ")}`)
        .join("\n");
    case "group":
      return n.value.children.map(nodeMarkdown).join("\n\n");
    case "collapsible":
      return [`**${n.value.summary}**`, ...n.value.children.map(nodeMarkdown)].join("\n\n");
    case "subSession":
      return `Sub-session: ${n.value.summary}`;
    case "action":
      return `Action: ${n.value.label} (calls ${codeSpan(n.value.toolName)})`;
    default:
      return "*(an empty node)*";
  }
}

/** The tree as Markdown. */
export function renderTreeMarkdown(tree: RenderTree): string {
  return nodeMarkdown(tree.root);
}
