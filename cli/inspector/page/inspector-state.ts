// The page's state and how each stream message changes it. A reducer, so the same message applied
// twice (a snapshot that already holds it, then the live copy) changes nothing.
import type { CallView, InspectorSnapshot, StreamMessage } from "../protocol/page-protocol.js";

/** What the page shows. */
export interface InspectorState {
  readonly snapshot?: InspectorSnapshot;
  readonly connected: boolean;
}

/** A message from the stream, or the connection going up or down. */
export type InspectorAction = StreamMessage | { readonly kind: "connection"; readonly connected: boolean };

function updateCall(calls: readonly CallView[], id: string, change: (call: CallView) => CallView): CallView[] {
  return calls.map((c) => (c.id === id ? change(c) : c));
}

/** Applies one action. */
export function reduce(state: InspectorState, action: InspectorAction): InspectorState {
  if (action.kind === "connection") return { ...state, connected: action.connected };
  if (action.kind === "snapshot") return { ...state, snapshot: action.snapshot };
  const s = state.snapshot;
  if (!s) return state;
  const next = (snapshot: Partial<InspectorSnapshot>): InspectorState => ({
    ...state,
    snapshot: { ...s, ...snapshot },
  });
  switch (action.kind) {
    case "call-start":
      return s.calls.some((c) => c.id === action.call.id) ? state : next({ calls: [...s.calls, action.call] });
    case "call-event":
      return next({ calls: updateCall(s.calls, action.id, (c) => ({ ...c, events: [...c.events, action.event] })) });
    case "call-end":
      return next({ calls: updateCall(s.calls, action.id, (c) => ({ ...c, end: action.end })) });
    case "hook":
      return s.hooks.some((h) => h.id === action.hook.id)
        ? next({ hooks: s.hooks.map((h) => (h.id === action.hook.id ? action.hook : h)) })
        : next({ hooks: [...s.hooks, action.hook] });
    case "log":
      return s.logs.some((l) => l.seq === action.line.seq) ? state : next({ logs: [...s.logs, action.line] });
    case "callback":
      return s.callbacks.some((c) => c.seq === action.callback.seq)
        ? state
        : next({ callbacks: [...s.callbacks, action.callback] });
    case "config":
      return next({ configState: action.state });
    case "replies":
      return next({ replies: action.replies });
    case "tool":
      return next({ tools: s.tools.map((t) => (t.name === action.tool.name ? action.tool : t)) });
    case "identity":
      return next({ identity: action.identity });
  }
}
