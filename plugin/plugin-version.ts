/** The plugin's name and version, as generated headers and `--version` print them. */
import packageJson from "./package.json" with { type: "json" };

/** The plugin's name. */
export const pluginName = "protoc-gen-harness-tool";

/** The plugin's version: its package's. */
export const pluginVersion: string = packageJson.version;
