/** The plugin's name and version, as generated headers and `--version` print them. */

/** The plugin's name. */
export const pluginName = "protoc-gen-harness-tool";

/** The plugin's version: the harness-tool package version (a test keeps them equal). */
export const pluginVersion = "0.1.0";
