/**
 * The hosts every interop scenario runs through, and how a scenario launches a provider on one:
 * harness-tool/testing's TypeScript host, and the real go-plugin v1.8.0 host in Go with the
 * kernel's client configuration and with AutoMTLS. Counts the scenarios each host passed, so the
 * test output says how much ran against the kernel's go-plugin.
 */
import { after, test, type TestContext } from "node:test";
import { buildGoHost, GoHost, goPluginVersion } from "./go-host.js";
import {
  launchWithGoHost,
  launchWithTypeScriptHost,
  type LaunchMode,
  type ProviderCommand,
  type ScenarioHost,
} from "./scenario-host.js";

/** A host and how it launches. */
export type HostId = "typescript" | "go" | "go-automtls";

export const hostIds: readonly HostId[] = ["typescript", "go", "go-automtls"];

const build = buildGoHost();
/** Why the Go hosts cannot run here (no Go toolchain on a developer machine), or false. */
export const goSkip: string | false = "skip" in build ? build.skip : false;

/** The built Go host binary; only call where the Go hosts are not skipped. */
export function goHostBinary(): string {
  if ("skip" in build) throw new Error(build.skip);
  return build.binary;
}

export const hostLabels: { readonly [id in HostId]: string } = {
  typescript: "typescript host",
  go: `go-plugin ${goPluginVersion} host`,
  "go-automtls": `go-plugin ${goPluginVersion} host with AutoMTLS`,
};

/** The skip option of a describe() for a host. */
export function skipFor(id: HostId): string | false {
  return id === "typescript" ? false : goSkip;
}

/** A provider launched through a host, with the Go host process where there is one. */
export interface Harness {
  readonly host: ScenarioHost;
  readonly go?: GoHost;
  close(): Promise<void>;
}

/** Launches `provider` through host `id`; `env` adds operator extras. */
export async function start(id: HostId, provider: ProviderCommand, env?: LaunchMode["env"]): Promise<Harness> {
  const mode: LaunchMode = { ...(env ? { env } : {}), ...(id === "go-automtls" ? { autoMTLS: true } : {}) };
  if (id === "typescript") {
    const host = await launchWithTypeScriptHost(provider, mode);
    return { host, close: async () => void (await host.kill()) };
  }
  const go = new GoHost(goHostBinary());
  try {
    const host = await launchWithGoHost(go, provider, mode);
    return { host, go, close: () => go.close() };
  } catch (error) {
    await go.close();
    throw error;
  }
}

const passed = new Map<HostId, number>();

/** test(), counted for `id` when it passes. */
export function scenario(id: HostId, name: string, run: (t: TestContext) => Promise<void> | void): void {
  test(name, async (t) => {
    await run(t);
    passed.set(id, (passed.get(id) ?? 0) + 1);
  });
}

after(() => {
  const counts = hostIds.map((id) => `${hostLabels[id]}: ${passed.get(id) ?? 0}`).join("; ");
  console.log(`# interop scenarios passed per host: ${counts}`);
});
