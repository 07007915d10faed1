/**
 * harness-tool's own plugin options, beside protoplugin's standard ones (target,
 * import_extension, rewrite_imports, ...). docs/plugin.md documents every option.
 */

/** The parsed options of protoc-gen-harness-tool. */
export interface HarnessToolOptions {
  /** Where the generated code imports the runtime from. Default `harness-tool`. */
  readonly runtimeImportPath: string;
}

/** The default options. */
export const defaultOptions: HarnessToolOptions = { runtimeImportPath: "harness-tool" };

/**
 * Parses harness-tool's options out of the raw key/value list; protoplugin parses the standard
 * ones and calls this for the rest, so an unknown key is an error here. protoplugin reports what
 * this throws as its option error (`invalid option "key=value": ...`).
 */
export function parseHarnessToolOptions(raw: readonly { key: string; value: string }[]): HarnessToolOptions {
  let runtimeImportPath = defaultOptions.runtimeImportPath;
  for (const { key, value } of raw) {
    switch (key) {
      case "runtime_import_path":
        if (value === "")
          throw new Error("runtime_import_path needs a module path, e.g. runtime_import_path=harness-tool");
        runtimeImportPath = value.replace(/\/+$/, "");
        break;
      default:
        throw new Error(
          `unknown option ${JSON.stringify(key)} (protoc-gen-harness-tool takes runtime_import_path and protoplugin's target, import_extension, rewrite_imports, keep_empty_files, ts_nocheck, elide_plugin_version, json_types=false)`,
        );
    }
  }
  return { runtimeImportPath };
}
