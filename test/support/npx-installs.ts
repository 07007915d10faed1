// npx keeps what it installed under the npm cache's _npx folder, keyed by the package specs as typed:
// a test that runs npx on packed tarballs removes its installs, before (a killed run's) and after.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";

/** npx's cache folders that installed `tarball`, to remove after the run. */
export function npxInstallsOf(tarball: string): string[] {
  const cache = path.join(process.env["npm_config_cache"] ?? path.join(homedir(), ".npm"), "_npx");
  if (!existsSync(cache)) return [];
  return readdirSync(cache)
    .map((d) => path.join(cache, d))
    .filter((d) => {
      try {
        return readFileSync(path.join(d, "package.json"), "utf8").includes(path.basename(path.dirname(tarball)));
      } catch {
        return false;
      }
    });
}
