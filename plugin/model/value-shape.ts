/**
 * The plugin's intermediate form of a value's type, resolved from proto messages (or an inline
 * `json_schema`). Every output derives from it: the JSON Schema constants and wire schemas, the
 * json-schema-to-typescript input, the compiled validators and the config attributes.
 */

/** A string, optionally limited to `enum`. */
export interface StringShape {
  readonly kind: "string";
  readonly description?: string;
  readonly enum?: readonly string[];
}

/** A finite JSON number (every proto numeric type). */
export interface NumberShape {
  readonly kind: "number";
  readonly description?: string;
  /**
   * The proto type is integral (int32, uint64, sint32, fixed64, ...): a fraction is refused. The
   * subset's JSON Schema has no integer type (schema.v1.Schema), so only the validator and the
   * description say so.
   */
  readonly integer?: true;
}

/** A boolean. */
export interface BooleanShape {
  readonly kind: "boolean";
  readonly description?: string;
}

/** A list; every element has the `items` shape. */
export interface ArrayShape {
  readonly kind: "array";
  readonly description?: string;
  readonly items: ValueShape;
}

/** String keys to `values` (config `map<string, string>` only: the tool subset has no maps). */
export interface MapShape {
  readonly kind: "map";
  readonly description?: string;
  readonly values: ValueShape;
}

/** One property of an object. */
export interface PropertyShape {
  /** The JSON property name: the proto field name as written. */
  readonly name: string;
  readonly shape: ValueShape;
  readonly required: boolean;
  /** The field's own description; wins over the shape's (a message's) description. */
  readonly description?: string;
  /** Config only: the value is a secret. */
  readonly sensitive: boolean;
  /** The proto field's full name (`pkg.Message.field`), for the generated code's `@generated from`. */
  readonly protoName?: string;
}

/** A closed object. */
export interface ObjectShape {
  readonly kind: "object";
  readonly description?: string;
  readonly properties: readonly PropertyShape[];
}

/** Any value shape. */
export type ValueShape = StringShape | NumberShape | BooleanShape | ArrayShape | MapShape | ObjectShape | NamedShape;

/**
 * A reference to a message's shape, which becomes a named TypeScript type and a named check
 * function; shared by every field of that message type in the file.
 */
export interface NamedShape {
  readonly kind: "named";
  /** The TypeScript type name, unique in the generated file. */
  readonly typeName: string;
  /** The proto full name of the message it comes from. */
  readonly messageName: string;
  /** The message's shape (an object, or whatever an inline json_schema says). */
  readonly target: Exclude<ValueShape, NamedShape>;
}

/** The description a property shows: its own, else its shape's (following a named reference). */
export function propertyDescription(property: PropertyShape): string | undefined {
  return property.description ?? shapeDescription(property.shape);
}

/** A shape's own description, following a named reference. */
export function shapeDescription(shape: ValueShape): string | undefined {
  return shape.kind === "named" ? shape.target.description : shape.description;
}

/** Follows a named reference to the shape it names. */
export function resolveShape(shape: ValueShape): Exclude<ValueShape, NamedShape> {
  return shape.kind === "named" ? shape.target : shape;
}
