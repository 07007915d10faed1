/**
 * The payload versions a provider's Render decodes (RenderRequest.schema_version). Neither
 * GetSchema nor Describe says which; the kernel re-renders every persisted event with its
 * producer's Render, so a version a release rendered must stay rendered. A launched provider is
 * asked by Render itself: a version no provider emits is refused with UNIMPLEMENTED, and
 * harness-tool's runtime names the versions it does render in that refusal; a provider that does
 * not is asked for each version the baseline recorded, UNIMPLEMENTED meaning it is gone.
 */
import type { LaunchedProvider } from "harness-tool/host";
import { ProviderCallError } from "harness-tool/host";

const grpcUnimplemented = 12;

/** A schema_version no provider emits: the question "which do you render?". */
export const probeVersion = "harness-tool diff: which schema_versions do you render?";

/** The versions a refusal of the probe names: `(it renders "1", "2")`, none for "does not implement Render". */
export function versionsInRefusal(details: string): string[] | undefined {
  if (/does not implement Render/.test(details)) return [];
  const listed = /\(it renders (.*)\)$/.exec(details)?.[1];
  if (listed === undefined) return undefined;
  return [...listed.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => JSON.parse(`"${m[1]}"`) as string).sort();
}

/** Whether the provider still renders `version`: anything but UNIMPLEMENTED (a payload it cannot read, no Configure yet) says yes. */
async function renders(launched: LaunchedProvider, version: string): Promise<boolean> {
  try {
    await launched.render(new Uint8Array(), version, { timeoutMs: 10_000 });
    return true;
  } catch (error) {
    return !(error instanceof ProviderCallError && error.code === grpcUnimplemented);
  }
}

/**
 * The versions the launched provider renders, as far as it can tell: all of them when it names
 * them, else those of `recorded` it still answers; undefined when it cannot tell and nothing was recorded.
 */
export async function renderVersionsOf(
  launched: LaunchedProvider,
  recorded: readonly string[] | undefined,
): Promise<string[] | undefined> {
  try {
    await launched.render(new Uint8Array(), probeVersion, { timeoutMs: 10_000 });
  } catch (error) {
    if (error instanceof ProviderCallError && error.code === grpcUnimplemented) {
      const named = versionsInRefusal(error.details);
      if (named !== undefined) return named;
    }
  }
  if (recorded === undefined) return undefined;
  const kept: string[] = [];
  for (const version of recorded) if (await renders(launched, version)) kept.push(version);
  return kept;
}
