/**
 * The provider process as the session sees it from outside: what GetSchema and Describe say of it
 * when it is (re)launched, and how it ended when it exits by itself.
 */
import { Category } from "harness-tool/generated/pluggableharness/common/v1/common_pb.js";
import type { HookPoint } from "harness-tool/generated/pluggableharness/common/v1/common_pb.js";
import type { LaunchedProvider } from "harness-tool/host";
import type { ProviderCommand } from "../../provider/provider-target.js";
import type { IdentityView } from "../protocol/page-protocol.js";
import { configAttributesFromWire } from "./secret-masking.js";

/** GetSchema and Describe of a launched provider, as the session keeps them. */
export async function loadProvider(provider: ProviderCommand, launched: LaunchedProvider) {
  const schema = await launched.getSchema({ timeoutMs: 10_000 });
  const described = await launched.describe({ timeoutMs: 10_000 }).catch(() => undefined);
  const producer = described?.producer;
  const identity: IdentityView = {
    name: producer?.name ?? "(Describe failed)",
    version: producer?.version ?? "",
    source: producer?.source ?? "",
    category: producer
      ? (Category[producer.category] ?? String(producer.category)).replace(/^CATEGORY_/, "").toLowerCase()
      : "",
    protocolVersion: producer?.protocolVersion ?? 0,
    command: [provider.command, ...provider.args].join(" "),
    executable: provider.command,
    args: provider.args,
    pid: launched.pid,
  };
  return {
    identity,
    tools: schema.tools,
    attributes: configAttributesFromWire(schema.configSchema?.attributes ?? []),
    hookPoints: schema.supportedHookPoints as readonly HookPoint[],
  };
}

/** What loadProvider read. */
export type LoadedProvider = Awaited<ReturnType<typeof loadProvider>>;

/** How a provider process ended, with the last warning or error it logged (the likely reason). */
export function exitText(
  how: { exitCode: number | null; signal: string | null },
  stderr: LaunchedProvider["stderr"],
): string {
  const ended = how.signal
    ? `the provider was ended by ${how.signal}`
    : `the provider exited with code ${how.exitCode}`;
  const last = [...stderr].reverse().find((line) => line.level === "error" || line.level === "warn");
  return last ? `${ended} (last ${last.level}: ${last.message})` : ended;
}

/** True when `launched` has exited, or exits within `ms`. */
export async function exitsWithin(launched: LaunchedProvider, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const exited = await Promise.race([
    launched.exited.then(() => true),
    new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms))),
  ]);
  clearTimeout(timer);
  return exited;
}
