// A form generated from a tool's input_schema (the kernel's JSON-Schema subset: objects, strings,
// numbers, booleans, arrays, string enums), with required marks and descriptions as help, and a raw
// JSON view of the same value. Optional fields left empty are left out of the arguments.
import { useState } from "preact/hooks";
import type { Json, JsonSchemaView } from "../protocol/page-protocol.js";

type JsonObject = { [key: string]: Json };

/** The starting value of a schema: required fields present with an empty value, optional ones absent. */
export function initialValue(schema: JsonSchemaView): Json | undefined {
  switch (schema.type) {
    case "object": {
      const out: JsonObject = {};
      for (const name of schema.required ?? []) {
        const child = schema.properties?.[name];
        const value = child ? initialValue(child) : undefined;
        if (value !== undefined) out[name] = value;
      }
      return out;
    }
    case "string":
      return schema.enum?.[0] ?? "";
    case "boolean":
      return false;
    case "array":
      return [];
    default:
      return undefined;
  }
}

interface FieldProps {
  readonly name: string;
  /** Where the field sits in the arguments, e.g. "options.paths[0]"; names its control's id. */
  readonly path: string;
  readonly schema: JsonSchemaView;
  readonly value: Json | undefined;
  readonly required: boolean;
  readonly onChange: (value: Json | undefined) => void;
}

function Help({ schema, id }: { schema: JsonSchemaView; id?: string | undefined }) {
  return schema.description ? (
    <small class="help" id={id}>
      {schema.description}
    </small>
  ) : null;
}

/** The id of a field's control, from its path in the arguments. */
function controlId(path: string): string {
  return `arg-${path.replace(/[^A-Za-z0-9_-]/g, "_")}`;
}

function FieldLabel({
  name,
  schema,
  required,
  path,
}: {
  name: string;
  schema: JsonSchemaView;
  required: boolean;
  path?: string;
}) {
  const content = (
    <>
      {name}
      {required ? (
        <abbr class="required" title="required">
          *
        </abbr>
      ) : null}
      <span class="field-type">
        {schema.type === "array" ? `${schema.items?.type ?? "any"}[]` : (schema.type ?? "any")}
      </span>
    </>
  );
  return path === undefined ? (
    <span class="field-name">{content}</span>
  ) : (
    <label class="field-name" for={controlId(path)}>
      {content}
    </label>
  );
}

function ObjectFields({
  schema,
  value,
  onChange,
  path,
}: {
  schema: JsonSchemaView;
  value: JsonObject;
  onChange: (value: JsonObject) => void;
  path: string;
}) {
  const required = new Set(schema.required ?? []);
  const names = Object.keys(schema.properties ?? {}).sort((a, b) => Number(required.has(b)) - Number(required.has(a)));
  return (
    <div class="fields">
      {names.map((name) => (
        <Field
          key={name}
          name={name}
          path={path === "" ? name : `${path}.${name}`}
          schema={schema.properties?.[name] ?? {}}
          required={required.has(name)}
          value={value[name]}
          onChange={(v) => {
            const copy = { ...value };
            if (v === undefined) delete copy[name];
            else copy[name] = v;
            onChange(copy);
          }}
        />
      ))}
    </div>
  );
}

/** An object: a button to set it, or its fields in a fieldset (with remove when optional). */
function objectField({ name, path, schema, value, required, onChange }: FieldProps) {
  if (value === undefined || typeof value !== "object" || value === null || Array.isArray(value)) {
    return (
      <div class="field">
        <FieldLabel name={name} schema={schema} required={required} />
        <button type="button" class="small" onClick={() => onChange(initialValue(schema) ?? {})}>
          Set {name}
        </button>
        <Help schema={schema} />
      </div>
    );
  }
  return (
    <fieldset class="field nested">
      <legend>
        <FieldLabel name={name} schema={schema} required={required} />
        {required ? null : (
          <button type="button" class="small link" onClick={() => onChange(undefined)}>
            remove
          </button>
        )}
      </legend>
      <Help schema={schema} />
      <ObjectFields schema={schema} value={value} onChange={onChange} path={path} />
    </fieldset>
  );
}

/** An array: a field per item, each removable, and Add item. */
function arrayField({ name, path, schema, value, required, onChange }: FieldProps) {
  const items = Array.isArray(value) ? value : [];
  const itemSchema = schema.items ?? {};
  return (
    <fieldset class="field nested">
      <legend>
        <FieldLabel name={name} schema={schema} required={required} />
      </legend>
      <Help schema={schema} />
      {items.map((item, i) => (
        <div class="array-item" key={i}>
          <Field
            name={`${name}[${i}]`}
            path={`${path}[${i}]`}
            schema={itemSchema}
            required={true}
            value={item}
            onChange={(v) => onChange(items.map((old, j) => (j === i ? (v ?? null) : old)))}
          />
          <button type="button" class="small link" onClick={() => onChange(items.filter((_, j) => j !== i))}>
            remove
          </button>
        </div>
      ))}
      <button type="button" class="small" onClick={() => onChange([...items, initialValue(itemSchema) ?? null])}>
        Add item
      </button>
    </fieldset>
  );
}

/** A boolean: a checkbox when required, else a select with (unset). */
function booleanField(
  { name, path, schema, value, required, onChange }: FieldProps,
  id: string,
  helpId: string | undefined,
) {
  return (
    <div class="field">
      <FieldLabel name={name} schema={schema} required={required} path={path} />
      {required ? (
        <input
          type="checkbox"
          id={id}
          aria-describedby={helpId}
          name={name}
          checked={value === true}
          onChange={(e) => onChange(e.currentTarget.checked)}
        />
      ) : (
        <select
          id={id}
          aria-describedby={helpId}
          name={name}
          value={value === undefined ? "" : String(value)}
          onChange={(e) => onChange(e.currentTarget.value === "" ? undefined : e.currentTarget.value === "true")}
        >
          <option value="">(unset)</option>
          <option value="true">true</option>
          <option value="false">false</option>
        </select>
      )}
      <Help schema={schema} id={helpId} />
    </div>
  );
}

/** A number input; empty is unset. */
function numberField(
  { name, path, schema, value, required, onChange }: FieldProps,
  id: string,
  helpId: string | undefined,
) {
  return (
    <div class="field">
      <FieldLabel name={name} schema={schema} required={required} path={path} />
      <input
        type="number"
        id={id}
        aria-describedby={helpId}
        step="any"
        name={name}
        value={typeof value === "number" ? String(value) : ""}
        onInput={(e) => {
          const text = e.currentTarget.value;
          onChange(text === "" ? undefined : Number(text));
        }}
      />
      <Help schema={schema} id={helpId} />
    </div>
  );
}

/** A string: a select for an enum, else a growing textarea. */
function stringField(
  { name, path, schema, value, required, onChange }: FieldProps,
  id: string,
  helpId: string | undefined,
) {
  if (schema.enum && schema.enum.length > 0) {
    return (
      <div class="field">
        <FieldLabel name={name} schema={schema} required={required} path={path} />
        <select
          id={id}
          aria-describedby={helpId}
          name={name}
          value={typeof value === "string" ? value : ""}
          onChange={(e) => onChange(e.currentTarget.value === "" && !required ? undefined : e.currentTarget.value)}
        >
          {required ? null : <option value="">(unset)</option>}
          {schema.enum.map((v) => (
            <option key={v} value={v}>
              {v}
            </option>
          ))}
        </select>
        <Help schema={schema} id={helpId} />
      </div>
    );
  }
  return (
    <div class="field">
      <FieldLabel name={name} schema={schema} required={required} path={path} />
      <textarea
        id={id}
        aria-describedby={helpId}
        name={name}
        rows={rowsFor(value)}
        value={typeof value === "string" ? value : ""}
        placeholder={required ? "" : "(unset)"}
        onInput={(e) => {
          const text = e.currentTarget.value;
          onChange(text === "" && !required ? undefined : text);
        }}
      />
      <Help schema={schema} id={helpId} />
    </div>
  );
}

/** A value of a type the form does not draw: its JSON as text. */
function jsonField(
  { name, path, schema, value, required, onChange }: FieldProps,
  id: string,
  helpId: string | undefined,
) {
  return (
    <div class="field">
      <FieldLabel name={name} schema={schema} required={required} path={path} />
      <textarea
        id={id}
        aria-describedby={helpId}
        name={name}
        rows={1}
        value={value === undefined ? "" : JSON.stringify(value)}
        onInput={(e) => onChange(parseOrText(e.currentTarget.value))}
      />
      <Help schema={schema} id={helpId} />
    </div>
  );
}

function Field(props: FieldProps) {
  const id = controlId(props.path);
  const helpId = props.schema.description ? `${id}-help` : undefined;
  switch (props.schema.type) {
    case "object":
      return objectField(props);
    case "array":
      return arrayField(props);
    case "boolean":
      return booleanField(props, id, helpId);
    case "number":
      return numberField(props, id, helpId);
    case "string":
      return stringField(props, id, helpId);
    default:
      return jsonField(props, id, helpId);
  }
}

/** A text field grows with its content, up to 8 rows. */
function rowsFor(value: Json | undefined): number {
  if (typeof value !== "string") return 1;
  const lines = value.split("\n").reduce((n, line) => n + Math.max(1, Math.ceil(line.length / 60)), 0);
  return Math.min(8, Math.max(1, lines));
}

function parseOrText(text: string): Json | undefined {
  if (text === "") return undefined;
  try {
    return JSON.parse(text) as Json;
  } catch {
    return text;
  }
}

/** The arguments a form holds: the value, or the raw JSON text when the raw view is open. */
export type FormValue = { readonly raw: false; readonly value: Json } | { readonly raw: true; readonly text: string };

/** The value to send, or the reason the raw JSON cannot be sent. */
export function formArguments(form: FormValue): { ok: true; value: Json } | { ok: false; message: string } {
  if (!form.raw) return { ok: true, value: form.value };
  try {
    return { ok: true, value: JSON.parse(form.text) as Json };
  } catch (error) {
    return {
      ok: false,
      message: `the arguments are not JSON: ${(error as Error).message}`,
    };
  }
}

/** The form for one tool's input, with its raw JSON toggle. */
export function SchemaForm({
  schema,
  form,
  onChange,
}: {
  schema: JsonSchemaView;
  form: FormValue;
  onChange: (form: FormValue) => void;
}) {
  const [rawError, setRawError] = useState<string | undefined>();
  const toggle = () => {
    if (form.raw) {
      const parsed = formArguments(form);
      if (!parsed.ok || typeof parsed.value !== "object" || parsed.value === null || Array.isArray(parsed.value)) {
        setRawError(parsed.ok ? "the form needs a JSON object; fix the JSON or send it as it is" : parsed.message);
        return;
      }
      setRawError(undefined);
      onChange({ raw: false, value: parsed.value });
    } else onChange({ raw: true, text: JSON.stringify(form.value, null, 2) });
  };
  return (
    <div class="schema-form">
      <div class="form-toolbar">
        <label class="toggle">
          <input type="checkbox" checked={form.raw} onChange={toggle} /> Raw JSON
        </label>
      </div>
      {form.raw ? (
        <label class="field">
          <span class="field-name">arguments (JSON)</span>
          <textarea
            class="raw-json"
            name="raw-arguments"
            rows={8}
            value={form.text}
            onInput={(e) => onChange({ raw: true, text: e.currentTarget.value })}
          />
          {rawError ? <small class="error-text">{rawError}</small> : null}
        </label>
      ) : (
        <ObjectFields
          schema={schema}
          value={typeof form.value === "object" && form.value !== null && !Array.isArray(form.value) ? form.value : {}}
          onChange={(value) => onChange({ raw: false, value })}
          path=""
        />
      )}
    </div>
  );
}
