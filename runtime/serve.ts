/**
 * `serve(provider)`: makes the current process a tool provider the PluggableHarness kernel can
 * launch through go-plugin. Owned by the transport work (runtime/transport); being written now.
 */
import type { ProviderDefinition } from "./provider/provider-definition.js";

/** Options of serve(). */
export interface ServeOptions {
  /** Where diagnostics go before the handshake; default: process.stderr. */
  readonly stderr?: NodeJS.WritableStream;
}

/**
 * Checks the provider's declarations, starts the gRPC server, prints the go-plugin handshake line
 * and serves until the kernel shuts the provider down. Resolves when the process should exit.
 */
export async function serve<Config>(provider: ProviderDefinition<Config>, options: ServeOptions = {}): Promise<void> {
  void provider;
  void options;
  throw new Error("serve() is not implemented yet");
}
