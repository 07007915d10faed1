// Configure from the provider's config schema. Sensitive attributes are password fields that the
// server never fills: a secret already set shows as "set", and leaving the field empty keeps it.
import { useState } from "preact/hooks";
import type { ConfigAttributeView, ConfigStateView, Json } from "../protocol/page-protocol.js";
import { api, ApiError } from "./inspector-api.js";

type Values = { [name: string]: string | boolean | Values };

function textOf(attribute: ConfigAttributeView, value: Json | undefined): string {
  if (value === undefined || value === null) return "";
  switch (attribute.type) {
    case "list_string":
    case "list_number":
      return Array.isArray(value) ? value.map(String).join("\n") : "";
    case "map_string":
      return typeof value === "object" && !Array.isArray(value)
        ? Object.entries(value)
            .map(([k, v]) => `${k}=${String(v)}`)
            .join("\n")
        : "";
    default:
      return typeof value === "string" ? value : JSON.stringify(value);
  }
}

function initialValues(attributes: readonly ConfigAttributeView[], config: { readonly [key: string]: Json }): Values {
  const out: Values = {};
  for (const a of attributes) {
    const value = config[a.name];
    if (a.type === "object")
      out[a.name] = initialValues(
        a.objectAttributes ?? [],
        typeof value === "object" && value !== null && !Array.isArray(value) ? value : {},
      );
    else if (a.type === "bool") out[a.name] = value === true;
    // A secret is never sent back to the page: its field starts empty.
    else out[a.name] = a.sensitive ? "" : textOf(a, value);
  }
  return out;
}

/** The form's values as the Configure struct; empty optional fields are left out. */
function configOf(
  attributes: readonly ConfigAttributeView[],
  values: Values,
  keep: string[],
  prefix = "",
): { [key: string]: Json } {
  const out: { [key: string]: Json } = {};
  for (const a of attributes) {
    const v = values[a.name];
    if (a.type === "object") {
      const nested = configOf(a.objectAttributes ?? [], typeof v === "object" ? v : {}, keep, `${prefix}${a.name}.`);
      if (Object.keys(nested).length > 0 || a.required) out[a.name] = nested;
      continue;
    }
    if (a.type === "bool") {
      out[a.name] = v === true;
      continue;
    }
    const text = typeof v === "string" ? v : "";
    if (text === "") {
      if (a.sensitive) keep.push(`${prefix}${a.name}`);
      continue;
    }
    const lines = text
      .split("\n")
      .map((l) => l.trim())
      .filter((l) => l !== "");
    switch (a.type) {
      case "number":
        out[a.name] = Number(text);
        break;
      case "list_string":
        out[a.name] = lines;
        break;
      case "list_number":
        out[a.name] = lines.map(Number);
        break;
      case "map_string":
        out[a.name] = Object.fromEntries(
          lines.map((l) => [
            l.slice(0, l.indexOf("=") < 0 ? l.length : l.indexOf("=")),
            l.indexOf("=") < 0 ? "" : l.slice(l.indexOf("=") + 1),
          ]),
        );
        break;
      default:
        out[a.name] = text;
    }
  }
  return out;
}

/** What AttributeFields draws: the attributes at one level, their values, and secrets already set. */
interface AttributeFieldsProps {
  attributes: readonly ConfigAttributeView[];
  values: Values;
  onChange: (values: Values) => void;
  secretsSet: readonly string[];
  prefix: string;
}

/**
 * An attribute's type in the notation the tool forms use for JSON Schema types (schema-form.tsx):
 * `bool` is `boolean`, `list_string` is `string[]`, `map_string` is `map<string, string>`.
 */
export function attributeTypeLabel(type: string): string {
  switch (type) {
    case "bool":
      return "boolean";
    case "list_string":
      return "string[]";
    case "list_number":
      return "number[]";
    case "map_string":
      return "map<string, string>";
    default:
      return type;
  }
}

/** An attribute's name, required mark, type and sensitivity. */
function attributeLabel(a: ConfigAttributeView) {
  return (
    <span class="field-name">
      {a.name}
      {a.required ? (
        <abbr class="required" title="required">
          *
        </abbr>
      ) : null}
      <span class="field-type" title={`agent.hcl attribute type ${a.type}`}>
        {attributeTypeLabel(a.type)}
      </span>
      {a.sensitive ? <span class="badge secret">sensitive</span> : null}
    </span>
  );
}

/** The text control of a number, string, list or map attribute (lists and maps one entry a line). */
function textControl(a: ConfigAttributeView, v: Values[string] | undefined, set: (v: string) => void) {
  const multi = a.type === "list_string" || a.type === "list_number" || a.type === "map_string";
  return multi ? (
    <textarea
      name={a.name}
      rows={3}
      placeholder={a.type === "map_string" ? "key=value, one a line" : "one a line"}
      value={typeof v === "string" ? v : ""}
      onInput={(e) => set(e.currentTarget.value)}
    />
  ) : a.type === "number" ? (
    <input
      type="number"
      step="any"
      name={a.name}
      value={typeof v === "string" ? v : ""}
      placeholder={a.defaultJson ? `default ${a.defaultJson}` : ""}
      onInput={(e) => set(e.currentTarget.value)}
    />
  ) : (
    <input
      type="text"
      name={a.name}
      value={typeof v === "string" ? v : ""}
      placeholder={a.defaultJson ? `default ${a.defaultJson}` : ""}
      onInput={(e) => set(e.currentTarget.value)}
    />
  );
}

/** One attribute's field: a fieldset for an object, a checkbox, a password field or a text control. */
function attributeField(a: ConfigAttributeView, { values, onChange, secretsSet, prefix }: AttributeFieldsProps) {
  const set = (v: string | boolean | Values) => onChange({ ...values, [a.name]: v });
  const label = attributeLabel(a);
  const help = a.description ? <small class="help">{a.description}</small> : null;
  const v = values[a.name];
  if (a.type === "object") {
    return (
      <fieldset class="field nested" key={a.name}>
        <legend>{label}</legend>
        {help}
        <AttributeFields
          attributes={a.objectAttributes ?? []}
          values={typeof v === "object" ? v : {}}
          onChange={set}
          secretsSet={secretsSet}
          prefix={`${prefix}${a.name}.`}
        />
      </fieldset>
    );
  }
  if (a.type === "bool") {
    return (
      <label class="field" key={a.name}>
        {label}
        <input type="checkbox" name={a.name} checked={v === true} onChange={(e) => set(e.currentTarget.checked)} />
        {help}
      </label>
    );
  }
  if (a.sensitive) {
    const isSet = secretsSet.includes(prefix + a.name);
    return (
      <label class="field" key={a.name}>
        {label}
        <input
          type="password"
          name={a.name}
          autocomplete="off"
          value={typeof v === "string" ? v : ""}
          placeholder={isSet ? "set (leave empty to keep it)" : "not set"}
          onInput={(e) => set(e.currentTarget.value)}
        />
        {help}
      </label>
    );
  }
  return (
    <label class="field" key={a.name}>
      {label}
      {textControl(a, v, set)}
      {help}
    </label>
  );
}

function AttributeFields(props: AttributeFieldsProps) {
  return <div class="fields">{props.attributes.map((a) => attributeField(a, props))}</div>;
}

/** The Configure view. */
export function ConfigPanel({
  attributes,
  state,
}: {
  attributes: readonly ConfigAttributeView[];
  state: ConfigStateView;
}) {
  // After a rejection the form holds the rejected values, to correct them; the config in force is shown below.
  const [values, setValues] = useState<Values>(() => initialValues(attributes, state.rejected ?? state.config));
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | undefined>();
  const submit = async (event: Event) => {
    event.preventDefault();
    const keep: string[] = [];
    const config = configOf(attributes, values, keep);
    setBusy(true);
    setFailure(undefined);
    try {
      const answer = await api.configure({ config, keep });
      if (answer.ok) setValues(initialValues(attributes, answer.state.config));
    } catch (error) {
      setFailure(error instanceof ApiError ? error.message : String(error));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="panel" aria-label="configure">
      <h2>Configure</h2>
      <p class={`config-status status-${state.status}`} aria-label="config status">
        {state.status === "accepted"
          ? "Configure accepted"
          : state.status === "rejected"
            ? "Configure rejected"
            : "not configured yet"}
        {state.error ? `: ${state.error.message}` : ""}
      </p>
      {state.error?.details !== undefined ? (
        <pre class="json">{JSON.stringify(state.error.details, null, 2)}</pre>
      ) : null}
      {attributes.length === 0 ? <p class="note">This provider declares no configuration.</p> : null}
      <form onSubmit={submit}>
        <AttributeFields
          attributes={attributes}
          values={values}
          onChange={setValues}
          secretsSet={state.secretsSet}
          prefix=""
        />
        <div class="actions">
          <button type="submit" disabled={busy}>
            Send Configure
          </button>
        </div>
        {failure ? <p class="error-text">{failure}</p> : null}
      </form>
      <h3>Current config</h3>
      {!state.inForce ? (
        <p class="note" aria-label="current config">
          None accepted yet: the provider runs without a configuration.
        </p>
      ) : (
        <pre class="json" aria-label="current config">
          {JSON.stringify(state.config, null, 2)}
        </pre>
      )}
      {state.rejected !== undefined ? (
        <>
          <h3>Rejected config</h3>
          <pre class="json" aria-label="rejected config">
            {JSON.stringify(state.rejected, null, 2)}
          </pre>
        </>
      ) : null}
    </section>
  );
}
