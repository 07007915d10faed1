/**
 * `harness-tool/supervisor`: supervision decided before the provider's code loads. The executables
 * `harness-tool bundle` and `harness-tool release` write call it first, from the environment alone
 * (the rule serve() reads, supervision-wanted.ts), and load the provider only when it returns
 * false: a supervisor then runs this module and no more (no protobuf registry, gRPC or provider
 * modules), and the provider it starts (the same executable, with the marker) loads the code and
 * serves. An entry that is not such an executable (tsx sources, a hand-written main) is supervised
 * by serve() as before, once its code has loaded. docs/runtime.md#the-supervisor.
 *
 * In the process that goes on to load the provider, the start-failure guard is armed first, before
 * the bundle's first module runs: a dependency that throws at import (evaluated before
 * harness-tool's own index, which arms it too) is still reported where the host shows it, and the
 * process still ends (docs/runtime.md#nothing-hangs).
 */
import { armStartFailureGuard } from "../transport/start-failure.js";
import { superviseProvider } from "./supervise-provider.js";
import { supervisionWanted } from "./supervision-wanted.js";

/**
 * Becomes the supervisor when a go-plugin host launched this process and supervision is wanted
 * (then the caller must not load the provider: the process exits with the provider's status);
 * otherwise arms the start-failure guard (only under a go-plugin host) and returns false.
 * `supervisorProgram`, asked only when this process supervises, names a supervisor program to run
 * in its place (superviseProvider()); none, the Node supervisor runs.
 */
export function superviseBeforeLoading(supervisorProgram?: () => string | undefined): boolean {
  if (!supervisionWanted(process.env, undefined)) {
    armStartFailureGuard();
    return false;
  }
  void superviseProvider(supervisorProgram?.());
  return true;
}
