// The answer of a Preview or Render: the tree drawn in its region, or the failure with its category.
import type { TreeAnswer } from "../protocol/page-protocol.js";
import { RenderTreeView } from "./render-tree.js";

/** A tree, or why there is none. */
export function TreeAnswerView({ answer, region }: { answer: TreeAnswer; region: string }) {
  if (answer.ok) {
    return (
      <div class="tree-answer">
        <RenderTreeView tree={answer.tree} region={region} />
        <small class="note">{answer.durationMs} ms</small>
      </div>
    );
  }
  return (
    <div class="tool-error" role="alert">
      <h4>
        <span class="badge bad">{answer.category ?? answer.status}</span> {answer.message}
      </h4>
      {answer.details !== undefined ? <pre class="json">{JSON.stringify(answer.details, null, 2)}</pre> : null}
    </div>
  );
}
