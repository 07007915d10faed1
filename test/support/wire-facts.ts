// Turns compiled descriptors into the shape of test/fixtures/wire-facts.json and compares two such
// tables, naming the first difference in words a person can act on.
import { ScalarType, createFileRegistry, type DescField, type DescFile, type DescMessage } from "@bufbuild/protobuf";
import type { FileDescriptorSet } from "@bufbuild/protobuf/wkt";

/** One field as wire-facts.json records it. */
export interface FieldFact {
  name: string;
  number: number;
  type: string;
  label?: "repeated" | "optional";
  oneof?: string;
}

/** One rpc as wire-facts.json records it. */
export interface MethodFact {
  name: string;
  input: string;
  output: string;
  serverStreaming: boolean;
  clientStreaming: boolean;
}

/** One proto file as wire-facts.json records it. */
export interface FileFacts {
  package: string;
  imports: string[];
  messages: Record<string, FieldFact[]>;
  enums: Record<string, Record<string, number>>;
  services: Record<string, MethodFact[]>;
}

/** The whole table, keyed by proto file path. */
export type WireFacts = Record<string, FileFacts>;

function scalarName(type: ScalarType): string {
  return ScalarType[type].toLowerCase();
}

function elementType(field: DescField): string {
  switch (field.fieldKind) {
    case "scalar":
      return scalarName(field.scalar);
    case "enum":
      return field.enum.typeName;
    case "message":
      return field.message.typeName;
    case "list":
      if (field.listKind === "scalar") return scalarName(field.scalar);
      return field.listKind === "enum" ? field.enum.typeName : field.message.typeName;
    case "map": {
      const value =
        field.mapKind === "scalar"
          ? scalarName(field.scalar)
          : field.mapKind === "enum"
            ? field.enum.typeName
            : field.message.typeName;
      return `map<${scalarName(field.mapKey)}, ${value}>`;
    }
  }
}

function fieldFact(field: DescField): FieldFact {
  const fact: FieldFact = { name: field.name, number: field.number, type: elementType(field) };
  if (field.fieldKind === "list") fact.label = "repeated";
  else if (field.proto.proto3Optional) fact.label = "optional";
  if (field.oneof) fact.oneof = field.oneof.name;
  return fact;
}

function collectMessages(messages: readonly DescMessage[], into: Record<string, FieldFact[]>): void {
  for (const message of messages) {
    into[message.typeName] = message.fields.map(fieldFact);
    collectMessages(message.nestedMessages, into);
    // Map entries are synthetic messages: they describe the map field, not a wire message of their own.
  }
}

function fileFacts(file: DescFile): FileFacts {
  const messages: Record<string, FieldFact[]> = {};
  collectMessages(file.messages, messages);
  const enums: Record<string, Record<string, number>> = {};
  const allEnums = [...file.enums];
  const visit = (ms: readonly DescMessage[]): void => {
    for (const m of ms) {
      allEnums.push(...m.nestedEnums);
      visit(m.nestedMessages);
    }
  };
  visit(file.messages);
  for (const e of allEnums) enums[e.typeName] = Object.fromEntries(e.values.map((v) => [v.name, v.number]));
  const services: Record<string, MethodFact[]> = {};
  for (const s of file.services) {
    services[s.typeName] = s.methods.map((m) => ({
      name: m.name,
      input: m.input.typeName,
      output: m.output.typeName,
      serverStreaming: m.methodKind === "server_streaming" || m.methodKind === "bidi_streaming",
      clientStreaming: m.methodKind === "client_streaming" || m.methodKind === "bidi_streaming",
    }));
  }
  return { package: file.proto.package, imports: file.proto.dependency.slice(), messages, enums, services };
}

/** The facts of every file in `set` whose path starts with `prefix`. */
export function wireFactsFromDescriptors(set: FileDescriptorSet, prefix: string): WireFacts {
  const registry = createFileRegistry(set);
  const facts: WireFacts = {};
  for (const file of registry.files) {
    const filePath = `${file.name}.proto`;
    if (filePath.startsWith(prefix)) facts[filePath] = fileFacts(file);
  }
  return facts;
}

function describeField(f: FieldFact): string {
  const label = f.label ? `${f.label} ` : "";
  const oneof = f.oneof ? ` in oneof ${f.oneof}` : "";
  return `\`${label}${f.type} ${f.name} = ${f.number}\`${oneof}`;
}

/**
 * The differences between what the protos say (`actual`) and what the kernel's contract says
 * (`expected`), most specific first within each element, each one sentence that says what to change.
 * Imports are not compared: they do not reach the wire.
 */
export function compareWireFacts(expected: WireFacts, actual: WireFacts): string[] {
  const problems: string[] = [];
  for (const [file, want] of Object.entries(expected)) {
    const have = actual[file];
    if (!have) {
      problems.push(`proto/${file} is missing: the kernel's contract defines package ${want.package} in that file.`);
      continue;
    }
    const where = `proto/${file}`;
    if (have.package !== want.package) {
      problems.push(`${where} declares package ${have.package}, but the kernel's contract says ${want.package}.`);
    }
    for (const [message, wantFields] of Object.entries(want.messages)) {
      const haveFields = have.messages[message];
      if (!haveFields) {
        problems.push(`${where}: message ${message} is missing (the kernel's contract defines it).`);
        continue;
      }
      for (const wf of wantFields) {
        const byName = haveFields.find((f) => f.name === wf.name);
        if (!byName) {
          const byNumber = haveFields.find((f) => f.number === wf.number);
          problems.push(
            byNumber
              ? `${where}: ${message} field number ${wf.number} is named \`${byNumber.name}\`, but the kernel's contract names it \`${wf.name}\` (names reach the JSON wire form: rename it back).`
              : `${where}: ${message} has no field \`${wf.name}\`; the kernel's contract declares ${describeField(wf)}.`,
          );
          continue;
        }
        if (byName.number !== wf.number) {
          problems.push(
            `${where}: ${message}.${wf.name} has field number ${byName.number}, but the kernel's contract says ${wf.number}: change it back to ${wf.number} (field numbers are the wire format).`,
          );
        }
        if (byName.type !== wf.type) {
          problems.push(
            `${where}: ${message}.${wf.name} has type ${byName.type}, but the kernel's contract says ${wf.type}.`,
          );
        }
        if ((byName.label ?? "") !== (wf.label ?? "")) {
          problems.push(
            `${where}: ${message}.${wf.name} is ${byName.label ?? "singular"}, but the kernel's contract says ${wf.label ?? "singular (no label)"}.`,
          );
        }
        if ((byName.oneof ?? "") !== (wf.oneof ?? "")) {
          problems.push(
            `${where}: ${message}.${wf.name} is ${byName.oneof ? `in oneof ${byName.oneof}` : "outside any oneof"}, but the kernel's contract puts it ${wf.oneof ? `in oneof ${wf.oneof}` : "outside any oneof"}.`,
          );
        }
      }
      for (const hf of haveFields) {
        if (!wantFields.some((f) => f.name === hf.name)) {
          problems.push(
            `${where}: ${message} declares ${describeField(hf)}, which the kernel's contract does not have: remove it.`,
          );
        }
      }
    }
    for (const message of Object.keys(have.messages)) {
      if (!(message in want.messages)) {
        problems.push(
          `${where}: message ${message} is not in the kernel's contract: remove it or move it to another package.`,
        );
      }
    }
    for (const [name, wantValues] of Object.entries(want.enums)) {
      const haveValues = have.enums[name];
      if (!haveValues) {
        problems.push(`${where}: enum ${name} is missing (the kernel's contract defines it).`);
        continue;
      }
      for (const [value, number] of Object.entries(wantValues)) {
        if (!(value in haveValues)) problems.push(`${where}: enum ${name} has no value ${value} = ${number}.`);
        else if (haveValues[value] !== number) {
          problems.push(
            `${where}: ${name}.${value} is ${haveValues[value]}, but the kernel's contract says ${number}: change it back.`,
          );
        }
      }
      for (const value of Object.keys(haveValues)) {
        if (!(value in wantValues))
          problems.push(`${where}: enum ${name} declares ${value}, which the kernel's contract does not have.`);
      }
    }
    for (const name of Object.keys(have.enums)) {
      if (!(name in want.enums)) problems.push(`${where}: enum ${name} is not in the kernel's contract.`);
    }
    for (const [service, wantMethods] of Object.entries(want.services)) {
      const haveMethods = have.services[service];
      if (!haveMethods) {
        problems.push(`${where}: service ${service} is missing (the kernel's contract defines it).`);
        continue;
      }
      for (const wm of wantMethods) {
        const hm = haveMethods.find((m) => m.name === wm.name);
        if (!hm) {
          problems.push(`${where}: service ${service} has no rpc ${wm.name}(${wm.input}) returns (${wm.output}).`);
          continue;
        }
        if (hm.input !== wm.input || hm.output !== wm.output) {
          problems.push(
            `${where}: ${service}.${wm.name} is (${hm.input}) -> (${hm.output}), but the kernel's contract says (${wm.input}) -> (${wm.output}).`,
          );
        }
        if (hm.serverStreaming !== wm.serverStreaming || hm.clientStreaming !== wm.clientStreaming) {
          const shape = (m: MethodFact) =>
            `${m.clientStreaming ? "client-streaming" : "unary request"}, ${m.serverStreaming ? "server-streaming" : "unary response"}`;
          problems.push(
            `${where}: ${service}.${wm.name} is ${shape(hm)}, but the kernel's contract says ${shape(wm)}.`,
          );
        }
      }
      for (const hm of haveMethods) {
        if (!wantMethods.some((m) => m.name === hm.name)) {
          problems.push(`${where}: ${service} declares rpc ${hm.name}, which the kernel's contract does not have.`);
        }
      }
    }
    for (const service of Object.keys(have.services)) {
      if (!(service in want.services)) problems.push(`${where}: service ${service} is not in the kernel's contract.`);
    }
  }
  for (const file of Object.keys(actual)) {
    if (!(file in expected)) problems.push(`proto/${file} is not part of the kernel's contract.`);
  }
  return problems;
}

/** A protocol revision on top of the kernel's snapshot: test/fixtures/wire-revision.json. */
export interface WireRevision {
  addMessages: Record<string, Record<string, FieldFact[]>>;
  addFields: Record<string, FieldFact[]>;
  replaceFields: Record<string, FieldFact[]>;
}

/** The snapshot's facts with `revision` applied; `snapshot` is left untouched. */
export function applyRevision(snapshot: WireFacts, revision: WireRevision): WireFacts {
  const facts: WireFacts = structuredClone(snapshot);
  const findMessage = (typeName: string): FieldFact[] => {
    for (const file of Object.values(facts)) {
      const fields = file.messages[typeName];
      if (fields) return fields;
    }
    throw new Error(`wire-revision.json names ${typeName}, which the snapshot does not define`);
  };
  for (const [file, messages] of Object.entries(revision.addMessages)) {
    const target = facts[file];
    if (!target) throw new Error(`wire-revision.json names ${file}, which the snapshot does not have`);
    Object.assign(target.messages, structuredClone(messages));
  }
  for (const [message, fields] of Object.entries(revision.addFields))
    findMessage(message).push(...structuredClone(fields));
  for (const [message, fields] of Object.entries(revision.replaceFields)) {
    const target = findMessage(message);
    for (const field of fields) {
      const index = target.findIndex((f) => f.name === field.name);
      if (index < 0)
        throw new Error(`wire-revision.json replaces ${message}.${field.name}, which the snapshot does not have`);
      target[index] = structuredClone(field);
    }
  }
  return facts;
}
