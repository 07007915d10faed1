/**
 * Process-wide guards so a misbehaving handler never takes the provider down: an unhandled
 * rejection or an uncaught exception from handler-spawned work is reported on stderr
 * instead of ending the process. serve() installs them; tests and embedders may not want them.
 *
 * docs/runtime.md#reliability.
 */
import { describeThrown } from "../../errors/classify-error.js";
import { hostTimestamp } from "../kernel/kernel-bindings.js";

/**
 * Installs the guards; returns the function that removes them. `stderr` is the service's stderr
 * exit, which redacts what the thrown value carries.
 */
export function installProcessGuards(stderr: (line: string) => void): () => void {
  const report = (what: string) => (thrown: unknown) => {
    try {
      const line = JSON.stringify({
        "@level": "error",
        "@message": `harness-tool: ${what} (the provider keeps running)`,
        "@timestamp": hostTimestamp(),
        error: describeThrown(thrown),
      });
      stderr(line);
    } catch {
      // Reporting must not throw from inside a process event.
    }
  };
  const onRejection = report(
    "an unhandled promise rejection, most likely from work a handler started and did not await",
  );
  const onException = report("an uncaught exception, most likely from a handler's callback");
  process.on("unhandledRejection", onRejection);
  process.on("uncaughtException", onException);
  return () => {
    process.off("unhandledRejection", onRejection);
    process.off("uncaughtException", onException);
  };
}
