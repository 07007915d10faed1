/**
 * What changed between two versions of a provider's tool surface (its GetSchemaResponse), judged
 * from the side of whoever depends on it: the model that calls a tool (its input schema), the code
 * that reads a result (its output schema), the kernel that gates calls on the declared facts (kind,
 * risk, concurrency, idempotent, terminates_turn) and the operator whose agent.hcl block is
 * decoded against the ConfigSchema, whose hook{} blocks are validated against the advertised hook
 * points. Each change has a stable id (`<class>:<subject>`) that
 * `harness-tool diff --allow` names to accept it.
 */
import type { HookPoint } from "harness-tool/generated/pluggableharness/common/v1/common_pb.js";
import { AttrType, type ConfigAttribute } from "harness-tool/generated/pluggableharness/config/v1/config_pb.js";
import { type Schema, SchemaType } from "harness-tool/generated/pluggableharness/schema/v1/schema_pb.js";
import type { GetSchemaResponse, ToolSchema } from "harness-tool/generated/pluggableharness/tool/v1/tool_pb.js";
import { protocolNames } from "harness-tool/schema";
import { hookPointNameOf } from "../terminal/hook-names.js";
import {
  concurrencyText as concurrencyPhrase,
  kindName as surfaceKindName,
  riskName as surfaceRiskName,
  timeoutText as timeoutPhrase,
} from "../terminal/wire-names.js";

const schemaTypes = protocolNames(SchemaType);
const attrTypes = protocolNames(AttrType);
/** "object", "string", ... */
const schemaTypeName = (type: SchemaType) => schemaTypes.name(type);
/** "string", "list_string", ... */
const attrTypeName = (type: AttrType) => attrTypes.name(type);

/**
 * How a change lands: `breaking` fails a dependent that worked before, `risk` makes the kernel trust
 * the tool more than before, `compatible` breaks nobody. The first two fail `diff` unless allowed.
 */
export type ChangeSeverity = "breaking" | "risk" | "compatible";

/** One change between the two surfaces. */
export interface SurfaceChange {
  /** `<class>:<subject>`, e.g. `risk-raised:write_file`, `input-field-required:read_note.title`. */
  readonly id: string;
  readonly class: ChangeClass;
  /** The tool and field path, or `config.<attribute>`. */
  readonly subject: string;
  readonly severity: ChangeSeverity;
  /** What it was and what it is, e.g. "low → high". */
  readonly detail: string;
}

/** Every class of change, with its severity. */
export const changeClasses = {
  "tool-added": "compatible",
  "tool-removed": "breaking",
  "kind-changed": "breaking",
  "risk-raised": "risk",
  "risk-lowered": "compatible",
  "concurrency-relaxed": "risk",
  "concurrency-tightened": "compatible",
  "timeout-changed": "compatible",
  "terminates-turn-changed": "breaking",
  "idempotent-claimed": "risk",
  "idempotent-dropped": "compatible",
  "streaming-changed": "compatible",
  "description-changed": "compatible",
  "input-field-added": "compatible",
  "input-required-added": "breaking",
  "input-field-required": "breaking",
  "input-field-optional": "compatible",
  "input-field-removed": "breaking",
  "input-type-changed": "breaking",
  "input-enum-value-removed": "breaking",
  "input-enum-value-added": "compatible",
  "output-field-added": "compatible",
  "output-field-removed": "breaking",
  "output-field-optional": "breaking",
  "output-field-required": "compatible",
  "output-type-changed": "breaking",
  "output-enum-value-added": "breaking",
  "output-enum-value-removed": "compatible",
  "config-attribute-added": "compatible",
  "config-required-added": "breaking",
  "config-attribute-required": "breaking",
  "config-attribute-optional": "compatible",
  "config-attribute-removed": "breaking",
  "config-type-changed": "breaking",
  "config-sensitive-set": "breaking",
  "config-sensitive-cleared": "risk",
  // The kernel checks an agent.hcl hook{} block against supported_hook_points at config load: a
  // point gone fails the operators who subscribed to it; a new one subscribes nobody by itself.
  "hook-point-added": "compatible",
  "hook-point-removed": "breaking",
  // The kernel re-renders a persisted event with its producer's Render at the schema_version it
  // was emitted with: a version no longer decoded breaks the replay of every session that has one.
  "renderer-added": "compatible",
  "renderer-removed": "breaking",
} as const satisfies Record<string, ChangeSeverity>;

/** A class of change, e.g. "risk-raised". */
export type ChangeClass = keyof typeof changeClasses;

function change(cls: ChangeClass, subject: string, detail: string): SurfaceChange {
  return { id: `${cls}:${subject}`, class: cls, subject, severity: changeClasses[cls], detail };
}

/** The changes from `before` to `after`: tools in name order, then config, then hook points; stable for snapshots. */
export function diffSurfaces(before: GetSchemaResponse, after: GetSchemaResponse): SurfaceChange[] {
  const changes: SurfaceChange[] = [];
  const oldTools = new Map(before.tools.map((t) => [t.name, t]));
  const newTools = new Map(after.tools.map((t) => [t.name, t]));
  for (const name of [...new Set([...oldTools.keys(), ...newTools.keys()])].sort()) {
    const was = oldTools.get(name);
    const now = newTools.get(name);
    if (!was) changes.push(change("tool-added", name, `${surfaceKindName(now!.kind)}, ${surfaceRiskName(now!.risk)}`));
    else if (!now)
      changes.push(change("tool-removed", name, `was ${surfaceKindName(was.kind)}, ${surfaceRiskName(was.risk)}`));
    else changes.push(...diffTool(was, now));
  }
  changes.push(...diffConfig(before.configSchema?.attributes ?? [], after.configSchema?.attributes ?? [], "config"));
  changes.push(...diffHookPoints(before.supportedHookPoints, after.supportedHookPoints));
  return changes;
}

/**
 * The rendered schema_versions gone and added (`render.<version>`); nothing when either side cannot
 * tell (a surface generated from protos, which do not say).
 */
export function diffRenderVersions(
  before: readonly string[] | undefined,
  after: readonly string[] | undefined,
): SurfaceChange[] {
  if (before === undefined || after === undefined) return [];
  const removed = before.filter((v) => !after.includes(v));
  const added = after.filter((v) => !before.includes(v));
  return [
    ...removed.map((v) => change("renderer-removed", `render.${v}`, "Render no longer decodes it")),
    ...added.map((v) => change("renderer-added", `render.${v}`, "Render decodes it")),
  ].sort((a, b) => a.subject.localeCompare(b.subject));
}

/** `a → b`. */
const arrow = (was: string, now: string) => `${was} → ${now}`;

/** The declared facts of one tool, then its input and output schemas. */
function diffTool(was: ToolSchema, now: ToolSchema): SurfaceChange[] {
  const out: SurfaceChange[] = [];
  const name = now.name;
  if (was.kind !== now.kind)
    out.push(change("kind-changed", name, arrow(surfaceKindName(was.kind), surfaceKindName(now.kind))));
  if (was.risk !== now.risk) {
    // The enum's values rise with the blast radius (read_only 1 … critical 5).
    const raised = now.risk > was.risk;
    out.push(
      change(
        raised ? "risk-raised" : "risk-lowered",
        name,
        arrow(surfaceRiskName(was.risk), surfaceRiskName(now.risk)),
      ),
    );
  }
  const concurrency = concurrencyChange(was, now);
  if (concurrency) out.push(change(concurrency, name, arrow(concurrencyPhrase(was), concurrencyPhrase(now))));
  if (timeoutPhrase(was) !== timeoutPhrase(now))
    out.push(change("timeout-changed", name, arrow(timeoutPhrase(was), timeoutPhrase(now))));
  if (was.terminatesTurn !== now.terminatesTurn)
    out.push(change("terminates-turn-changed", name, arrow(String(was.terminatesTurn), String(now.terminatesTurn))));
  if (was.idempotent !== now.idempotent)
    out.push(
      change(
        now.idempotent ? "idempotent-claimed" : "idempotent-dropped",
        name,
        arrow(String(was.idempotent), String(now.idempotent)),
      ),
    );
  if (was.streaming !== now.streaming)
    out.push(change("streaming-changed", name, arrow(String(was.streaming), String(now.streaming))));
  // What the model reads to choose the tool: no call breaks, but its behaviour may change.
  if (was.description !== now.description)
    out.push(change("description-changed", name, `${was.description.length} → ${now.description.length} characters`));
  out.push(...diffSchema(was.inputSchema, now.inputSchema, name, "input"));
  out.push(...diffSchema(was.outputSchema, now.outputSchema, name, "output"));
  return out;
}

/**
 * Relaxed: the kernel may now run calls side by side that it serialized before (safe turned on, or
 * a key field dropped, so fewer calls conflict). Tightened: the reverse.
 */
function concurrencyChange(
  was: ToolSchema,
  now: ToolSchema,
): "concurrency-relaxed" | "concurrency-tightened" | undefined {
  const before = { safe: was.concurrency?.safe ?? false, keys: new Set(was.concurrency?.keyFields ?? []) };
  const after = { safe: now.concurrency?.safe ?? false, keys: new Set(now.concurrency?.keyFields ?? []) };
  if (before.safe !== after.safe) return after.safe ? "concurrency-relaxed" : "concurrency-tightened";
  if (!after.safe) return undefined;
  // With safe on, an empty key list claims no conflicts at all: the most relaxed.
  if (before.keys.size > 0 && after.keys.size === 0) return "concurrency-relaxed";
  if (before.keys.size === 0 && after.keys.size > 0) return "concurrency-tightened";
  if ([...before.keys].some((k) => !after.keys.has(k))) return "concurrency-relaxed";
  if ([...after.keys].some((k) => !before.keys.has(k))) return "concurrency-tightened";
  return undefined;
}

/**
 * One schema node against its new version, recursively. `side` says who depends on it: the model
 * writes inputs (a new requirement, a narrower type or a removed value breaks calls it makes), a
 * consumer reads outputs (a field that may now be missing, or a value it never saw, breaks it).
 */
function diffSchema(
  was: Schema | undefined,
  now: Schema | undefined,
  path: string,
  side: "input" | "output",
): SurfaceChange[] {
  if (!was || !now) return [];
  const out: SurfaceChange[] = [];
  if (was.type !== now.type)
    return [change(`${side}-type-changed`, path, arrow(schemaTypeName(was.type), schemaTypeName(now.type)))];
  const removedValues = was.enumValues.filter((v) => !now.enumValues.includes(v));
  const addedValues = now.enumValues.filter((v) => !was.enumValues.includes(v));
  // An enum appearing on a free string narrows it (input) but is no news to a reader (output).
  if (was.enumValues.length === 0 && now.enumValues.length > 0) {
    if (side === "input")
      out.push(change("input-type-changed", path, arrow("any string", `one of ${now.enumValues.join(", ")}`)));
  } else if (now.enumValues.length === 0 && was.enumValues.length > 0) {
    if (side === "output")
      out.push(change("output-type-changed", path, arrow(`one of ${was.enumValues.join(", ")}`, "any string")));
  } else {
    for (const v of removedValues) out.push(change(`${side}-enum-value-removed`, `${path}=${v}`, `"${v}" removed`));
    for (const v of addedValues) out.push(change(`${side}-enum-value-added`, `${path}=${v}`, `"${v}" added`));
  }
  if (was.items || now.items) out.push(...diffSchema(was.items, now.items, `${path}[]`, side));
  out.push(...diffProperties(was, now, path, side));
  return out;
}

/** The properties of two object nodes: added, removed, required or not, and each kept one inside. */
function diffProperties(was: Schema, now: Schema, path: string, side: "input" | "output"): SurfaceChange[] {
  const out: SurfaceChange[] = [];
  const wasRequired = new Set(was.required);
  const nowRequired = new Set(now.required);
  const names = [...new Set([...Object.keys(was.properties), ...Object.keys(now.properties)])].sort();
  for (const name of names) {
    const field = `${path}.${name}`;
    const before = was.properties[name];
    const after = now.properties[name];
    if (!before && after) {
      if (side === "input")
        out.push(
          change(
            nowRequired.has(name) ? "input-required-added" : "input-field-added",
            field,
            nowRequired.has(name) ? "new, required" : "new, optional",
          ),
        );
      else
        out.push(change("output-field-added", field, nowRequired.has(name) ? "new, always present" : "new, optional"));
      continue;
    }
    if (before && !after) {
      out.push(change(`${side}-field-removed`, field, `was ${schemaTypeName(before.type)}`));
      continue;
    }
    if (wasRequired.has(name) !== nowRequired.has(name)) {
      const required = nowRequired.has(name);
      out.push(
        change(
          `${side}-field-${required ? "required" : "optional"}`,
          field,
          required ? "optional → required" : "required → optional",
        ),
      );
    }
    out.push(...diffSchema(before, after, field, side));
  }
  return out;
}

/** The config attributes, recursively into objects. */
function diffConfig(was: readonly ConfigAttribute[], now: readonly ConfigAttribute[], at: string): SurfaceChange[] {
  const out: SurfaceChange[] = [];
  const before = new Map(was.map((a) => [a.name, a]));
  const after = new Map(now.map((a) => [a.name, a]));
  for (const name of [...new Set([...before.keys(), ...after.keys()])].sort()) {
    const subject = `${at}.${name}`;
    const a = before.get(name);
    const b = after.get(name);
    if (!a) {
      out.push(
        change(
          b!.required ? "config-required-added" : "config-attribute-added",
          subject,
          `${attrTypeName(b!.type)}${b!.required ? ", required" : ""}`,
        ),
      );
      continue;
    }
    if (!b) {
      out.push(change("config-attribute-removed", subject, `was ${attrTypeName(a.type)}`));
      continue;
    }
    if (a.type !== b.type)
      out.push(change("config-type-changed", subject, arrow(attrTypeName(a.type), attrTypeName(b.type))));
    if (a.required !== b.required)
      out.push(
        change(
          b.required ? "config-attribute-required" : "config-attribute-optional",
          subject,
          b.required ? "optional → required" : "required → optional",
        ),
      );
    // Set: a literal value an operator wrote is now refused (sensitive means exactly env("…")).
    // Cleared: a secret is no longer redacted by the kernel or the runtime.
    if (a.sensitive !== b.sensitive)
      out.push(
        change(
          b.sensitive ? "config-sensitive-set" : "config-sensitive-cleared",
          subject,
          arrow(String(a.sensitive), String(b.sensitive)),
        ),
      );
    out.push(...diffConfig(a.objectAttributes, b.objectAttributes, subject));
  }
  return out;
}

/** The advertised hook points, in wire order. Modes are agent.hcl's, not the surface's: not compared. */
function diffHookPoints(was: readonly HookPoint[], now: readonly HookPoint[]): SurfaceChange[] {
  const out: SurfaceChange[] = [];
  for (const point of [...new Set([...was, ...now])].sort((a, b) => a - b)) {
    const subject = `hooks.${hookPointNameOf(point)}`;
    if (!was.includes(point)) out.push(change("hook-point-added", subject, "now advertised"));
    else if (!now.includes(point)) out.push(change("hook-point-removed", subject, "no longer advertised"));
  }
  return out;
}

/** True when the change fails `diff` (breaking or risk-raising) and `allowed` does not name it. */
export function isBlocking(c: SurfaceChange, allowed: ReadonlySet<string>): boolean {
  return c.severity !== "compatible" && !allowed.has(c.id);
}
