/**
 * The scenarios every provider gets through every host of the matrix: the handshake in
 * PLUGIN_UNIX_SOCKET_DIR, StreamStdio, GetSchema and Describe, the provider's own scenarios, Kill()
 * with every stderr line in shape, and (Go hosts) the host SIGKILLed. Used for the examples here
 * and for the scaffold's bundled provider by the init end-to-end test.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe } from "node:test";
import type { GoHost } from "./go-host.js";
import { hostIds, hostLabels, scenario, skipFor, start, type Harness, type HostId } from "./host-matrix.js";
import type { ProviderCommand, ScenarioHost } from "./scenario-host.js";
import { handshakeScenario, hostSigkilledScenario, killScenario, streamStdioScenario } from "./scenarios.js";

/** A provider under test and its own scenarios. */
export interface ProviderInteropSpec {
  readonly name: string;
  /** The command; a function when it is known only once the tests run (a freshly built scaffold). */
  readonly provider: () => ProviderCommand;
  /** Scenarios of this provider, registered inside each host's describe. */
  readonly scenarios?: (id: HostId, host: () => ScenarioHost) => void;
}

/** Registers the provider's describe blocks, one per host. */
export function describeProviderInterop(spec: ProviderInteropSpec): void {
  for (const id of hostIds) {
    describe(`${hostLabels[id]} × ${spec.name}`, { skip: skipFor(id) }, () => {
      let h: Harness;
      let socketDir = "";
      before(async () => {
        // Listening where PLUGIN_UNIX_SOCKET_DIR says, as go-plugin hosts may ask.
        socketDir = mkdtempSync(path.join(os.tmpdir(), "ht-sock-"));
        h = await start(id, spec.provider(), { PLUGIN_UNIX_SOCKET_DIR: socketDir });
      });
      after(async () => {
        await h?.close();
        rmSync(socketDir, { recursive: true, force: true });
      });
      scenario(id, "handshake in PLUGIN_UNIX_SOCKET_DIR, Ping, GetSchema, Describe", async () => {
        await handshakeScenario(h.host, socketDir);
        const schema = await h.host.getSchema();
        assert.ok(schema.tools.length > 0);
        assert.ok((await h.host.describe()).producer?.name);
      });
      if (id !== "typescript")
        scenario(id, "StreamStdio: go-plugin v1.8.0 opens it and reads it without a warning", () =>
          streamStdioScenario(h.go as GoHost),
        );
      spec.scenarios?.(id, () => h.host);
      scenario(
        id,
        "Kill(): controller Shutdown, gone well under the 2 s SIGKILL path; nothing left in the socket dir; every stderr line kept its shape",
        () => killScenario(h.host, h.go, socketDir),
      );
    });
  }
  for (const id of hostIds.filter((h) => h !== "typescript")) {
    describe(`${hostLabels[id]} SIGKILLed × ${spec.name}`, { skip: skipFor(id) }, () => {
      scenario(
        id,
        "the broker stream and the connection break: the provider exits by itself and removes its socket",
        async () => {
          const socketDir = mkdtempSync(path.join(os.tmpdir(), "ht-sock-"));
          try {
            const h = await start(id, spec.provider(), { PLUGIN_UNIX_SOCKET_DIR: socketDir });
            try {
              await hostSigkilledScenario(h.go as GoHost, h.host);
            } finally {
              await h.close();
            }
          } finally {
            rmSync(socketDir, { recursive: true, force: true });
          }
        },
      );
    });
  }
}
