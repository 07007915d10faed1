/**
 * How an Invoke learns that the kernel cancelled its stream: the part of AbortSignal the runtime
 * uses (an AbortSignal is one). The transport's is lighter than an AbortController, which costs a
 * call measurably (bench/RESULTS.md, Invoke); a handler's ctx.signal is a real AbortSignal, made
 * when read.
 */
export interface CancelSignal {
  readonly aborted: boolean;
  addEventListener(type: "abort", listener: () => void, options?: { readonly once?: boolean }): void;
  removeEventListener(type: "abort", listener: () => void): void;
}
