/**
 * The provider's side of the supervisor (docs/runtime.md#the-supervisor), wired by serve() around
 * the ToolService: the secrets go to the supervisor before Configure is decoded, the process groups
 * of ctx.spawn's children go to an orphan watchdog (the supervisor's, over the channel; without a
 * supervisor one of this process's own, started at the first child), and at shutdown the children
 * ctx.spawn did not start are named.
 */
import type { ConfigAttributeDeclaration } from "../provider/provider-definition.js";
import { collectSecrets } from "../redaction/collect-secrets.js";
import { spawnedChildPids, watchChildGroups } from "../service/process/spawn-child.js";
import type { ToolServiceCore } from "../service/calls/tool-service-core.js";
import { OrphanWatchdog } from "./orphan-watchdog.js";
import { strayChildren } from "./stray-children.js";
import type { SupervisorChannel } from "./supervisor-channel.js";

/** What supervision needs around one service. */
export interface SupervisionOptions {
  /** The provider's config attributes: which values are secrets. */
  readonly attributes: readonly ConfigAttributeDeclaration[];
  /** The channel to the supervisor; undefined when the process serves alone. */
  readonly channel: SupervisorChannel | undefined;
  /** One host log line (JSON, newline included) for the warning. */
  readonly warn: (message: string, fields: { readonly [key: string]: unknown }) => void;
}

/** Starts watching the tools' children now; wraps `service`'s configure and shutdown in place. */
export function superviseService(service: ToolServiceCore, options: SupervisionOptions): void {
  const { channel } = options;
  // Children from before now are the loader's or the entry's (tsx's esbuild service), not a tool's.
  const startedBefore = strayChildren(new Set()).map((child) => child.pid);
  let watchdog: OrphanWatchdog | undefined;
  watchChildGroups(
    channel
      ? { watch: (pgid) => channel.watchGroup(pgid), forget: (pgid) => channel.forgetGroup(pgid) }
      : {
          watch: (pgid) => {
            watchdog ??= OrphanWatchdog.start();
            watchdog?.watchGroup(pgid);
            return undefined;
          },
          forget: (pgid) => watchdog?.forgetGroup(pgid),
        },
  );
  // The supervisor filters the bytes below this process's JavaScript: it learns each secret before
  // Configure goes on, so nothing written after can reach its filter first.
  const configure = service.configure.bind(service);
  service.configure = (request, trace, deadline) => {
    channel?.learnSecrets(collectSecrets(options.attributes, request.config ?? {}));
    return configure(request, trace, deadline);
  };
  // What ctx.spawn did not start, the runtime cannot end; it names each one
  // (docs/runtime.md#child-processes).
  const shutdown = service.shutdown.bind(service);
  service.shutdown = async (graceMs) => {
    await shutdown(graceMs);
    const known = new Set([
      ...startedBefore,
      ...spawnedChildPids(),
      ...(watchdog?.pid === undefined ? [] : [watchdog.pid]),
    ]);
    for (const stray of strayChildren(known)) {
      options.warn(
        `harness-tool: child process ${stray.pid} (${stray.command}) was not started with ctx.spawn and is still running as the provider exits: it will outlive the provider; start tool processes with ctx.spawn, which ends them (docs/runtime.md#child-processes)`,
        { pid: stray.pid },
      );
    }
  };
}
