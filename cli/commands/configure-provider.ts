/**
 * Configure as the first call of a command that then calls the provider (invoke, hook): the
 * provider's refusal, or how it died, said once for both.
 */
import type { JsonObject } from "@bufbuild/protobuf";
import { ProviderCallError, type LaunchedProvider } from "harness-tool/testing";
import { providerExitReport } from "../provider/launch-provider.js";

/** Sends Configure; true when accepted. A refusal or a crash is written to `err` (the caller exits 1). */
export async function configureProvider(launched: LaunchedProvider, config: JsonObject, err: NodeJS.WritableStream): Promise<boolean> {
  try {
    await launched.configure(config, { timeoutMs: 30_000 });
    return true;
  } catch (e) {
    if (!(e instanceof ProviderCallError)) throw e;
    const exit = e.toolError ? undefined : await providerExitReport(launched);
    if (exit) {
      err.write(`Configure failed: ${exit}\n`);
      return false;
    }
    const te = e.toolError;
    err.write(`Configure was rejected (gRPC status ${e.code}): ${te?.message ?? e.details}\n`);
    if (te?.details) err.write(`${JSON.stringify(te.details, null, 2)}\n`);
    return false;
  }
}
