// The `harness-tool` command run in this process, as the CLI tests drive it.
import { main } from "../../../cli/main.js";
import { captureStream } from "../../support/captured-stream.js";

/** What one run of the command printed, and its exit code. */
export interface CliRun {
  readonly code: number;
  readonly out: string;
  readonly err: string;
}

/** Runs `harness-tool <argv>`; with `columns`, stdout and stderr pose as terminals that wide. */
export async function cli(argv: string[], columns?: number): Promise<CliRun> {
  const out = captureStream(columns);
  const err = captureStream(columns);
  const code = await main(argv, { out: out.stream, err: err.stream });
  return { code, out: out.text(), err: err.text() };
}
