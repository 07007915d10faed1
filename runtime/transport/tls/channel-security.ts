/** How a gRPC client of the provider dials: plaintext (go-plugin's default) or AutoMTLS (mutual-tls.ts). */
import { type ChannelCredentials, type ChannelOptions, credentials } from "@grpc/grpc-js";

/** How a client dials: credentials plus the channel options they need (mutual-tls.ts for AutoMTLS). */
export interface ChannelSecurity {
  readonly credentials: ChannelCredentials;
  readonly options: ChannelOptions;
}

/** Plaintext, go-plugin's default (no AutoMTLS). */
export const plaintextChannel: ChannelSecurity = { credentials: credentials.createInsecure(), options: {} };
