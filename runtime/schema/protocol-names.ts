/**
 * The protocol names of the wire enums, derived once from the generated enums: a value's proto name
 * without the enum's prefix, lower-cased (TOOL_KIND_DATA_SOURCE, `ToolKind.DATA_SOURCE`, is
 * "data_source"), the zero value left out. Every name↔enum table of kind, risk and error category
 * is one of these.
 */

/** The names of a generated enum's values as the protocol writes them, without the zero value. */
export type ProtocolName<Enum extends object> = Exclude<Lowercase<Extract<keyof Enum, string>>, "unspecified">;

/** Both directions between a wire enum's values and their protocol names. */
export interface ProtocolNames<Name extends string, Value extends number> {
  /** The names in wire order. */
  readonly names: readonly Name[];
  /** The wire value of a name. */
  value(name: Name): Value;
  /** The name of a wire value: "unspecified" for the zero value and for values this build does not know. */
  name(value: number): Name | "unspecified";
}

/** The protocol names of a protoc-gen-es enum (a TypeScript enum whose keys are the stripped proto names). */
export function protocolNames<Enum extends object>(
  generated: Enum,
): ProtocolNames<ProtocolName<Enum>, Extract<Enum[keyof Enum], number>> {
  const values = Object.entries(generated)
    .filter((entry): entry is [string, number] => typeof entry[1] === "number" && entry[1] !== 0)
    .sort((a, b) => a[1] - b[1]);
  const byName = new Map(values.map(([key, value]) => [key.toLowerCase(), value]));
  const byValue = new Map(values.map(([key, value]) => [value, key.toLowerCase() as ProtocolName<Enum>]));
  return {
    names: [...byValue.values()],
    value: (name) => byName.get(name) as Extract<Enum[keyof Enum], number>,
    name: (value) => byValue.get(value) ?? "unspecified",
  };
}
