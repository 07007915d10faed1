// What test/plugin/golden/ holds: the good protos generated for each target, and where.

/** The protos of test/plugin/protos/good that have committed output. */
export const goldenProtos = ["mapping.proto", "names.proto", "no_timeout.proto"];

/** Each committed target: its folder under test/plugin and the plugin parameter that made it. */
export const goldenTargets = [
  { folder: "golden", parameter: "target=ts,import_extension=js" },
  { folder: "golden/js-dts", parameter: "target=js+dts,import_extension=js" },
] as const;
