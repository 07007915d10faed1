/**
 * Why a release could not be built (a platform's `node` could not be had, injection failed, the
 * built provider would not describe itself), said in one line that ends with what to do; the
 * command prefixes its name and exits 1. Mistakes in the command line are UsageErrors (exit 2).
 */
export class ReleaseError extends Error {
  override readonly name = "ReleaseError";
}
