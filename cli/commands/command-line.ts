/**
 * Parses a command's arguments against its declaration and renders its help. The parser is ours
 * rather than node:util's parseArgs so that every mistake gets a message written for this CLI
 * (parseArgs' own texts suggest `-- "--flag"` quoting that means something else here, where `--`
 * starts the provider's arguments).
 */
import type {
  CommandDefinition,
  CommandInput,
  FlagDefinition,
  FlagDefinitions,
  FlagValues,
  PositionalDefinition,
} from "./command-definition.js";
import { nearestName } from "../terminal/fault-wording.js";
import { wrapText } from "../terminal/terminal-width.js";
import { UsageError } from "../terminal/usage-error.js";

/** What the command line asked for: run the command, or show its help. */
export type ParsedCommandLine = { readonly help: true } | ({ readonly help: false } & CommandInput<FlagDefinitions>);

const helpFlag: FlagDefinition = { type: "boolean", short: "h", description: "show this help" };

function flagByShort(flags: FlagDefinitions, short: string): string | undefined {
  return Object.keys(flags).find((name) => flags[name]?.short === short);
}

/** A mistake in the command line: the message points at the command's help. */
function usageError(message: string): UsageError {
  return new UsageError(message, { seeHelp: true });
}

/** Parses `argv` (the arguments after the command's name) for `command`. */
export function parseCommandLine(command: CommandDefinition, argv: readonly string[]): ParsedCommandLine {
  const separator = argv.indexOf("--");
  const own = separator < 0 ? [...argv] : argv.slice(0, separator);
  const after = separator < 0 ? [] : argv.slice(separator + 1);
  const positionals: string[] = [];
  if (!command.providerArgs) positionals.push(...after);
  const values: Record<string, string | boolean | string[] | undefined> = {};
  for (let i = 0; i < own.length; i++) {
    const arg = own[i] as string;
    if (!arg.startsWith("-") || arg === "-") {
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const written = eq < 0 ? arg : arg.slice(0, eq);
    const inline = eq < 0 ? undefined : arg.slice(eq + 1);
    if (written === "--help" || written === "-h") return { help: true };
    const name = written.startsWith("--") ? written.slice(2) : flagByShort(command.flags, written.slice(1));
    const flag = name === undefined ? undefined : command.flags[name];
    if (name === undefined || flag === undefined) throw usageError(unknownOptionText(command, written));
    if (flag.type === "boolean") {
      if (inline !== undefined) throw usageError(`${written} takes no value`);
      values[name] = true;
      continue;
    }
    let value = inline;
    if (value === undefined) {
      const next = own[i + 1];
      if (next === undefined || isFlag(command.flags, next))
        throw usageError(`${written} needs a value: ${written} <${flag.value}>`);
      value = next;
      i++;
    }
    if (flag.multiple) values[name] = [...((values[name] as string[] | undefined) ?? []), value];
    else if (values[name] !== undefined) throw usageError(`${written} was given twice`);
    else values[name] = value;
  }
  checkPositionals(command, positionals);
  for (const [name, flag] of Object.entries(command.flags)) {
    if (values[name] !== undefined) continue;
    if (flag.type === "boolean") values[name] = false;
    else if (flag.multiple) values[name] = [];
    else if (flag.default !== undefined) values[name] = flag.default;
    else if (flag.required)
      throw usageError(withinLine(command, `--${name} <${flag.value}> is required`, `: ${flag.description}`));
  }
  return {
    help: false,
    values: values as FlagValues<FlagDefinitions>,
    positionals,
    providerArgs: after,
    empty: argv.length === 0,
  };
}

/** "unknown option --arg; did you mean --args?", or the command's flags when none is near. */
function unknownOptionText(command: CommandDefinition, written: string): string {
  const near = nearestName(written.replace(/^-+/, ""), Object.keys(command.flags));
  if (near !== undefined) return `unknown option ${written}; did you mean --${near}?`;
  const known = Object.keys(command.flags).map((f) => `--${f}`);
  return `unknown option ${written}${known.length > 0 ? `; it takes ${known.join(", ")}` : "; it takes no options"}`;
}

/** The widest a one-line error may be, its `harness-tool <command>: ` prefix included. */
export const errorLineWidth = 100;

/** `text` with `detail` after it when the whole error line stays within errorLineWidth, else `text` alone. */
function withinLine(command: CommandDefinition, text: string, detail: string): string {
  return `harness-tool ${command.name}: ${text}${detail}`.length <= errorLineWidth ? `${text}${detail}` : text;
}

function isFlag(flags: FlagDefinitions, arg: string): boolean {
  if (arg === "-h" || arg === "--help") return true;
  if (arg.startsWith("--")) return flags[arg.slice(2).split("=")[0] as string] !== undefined;
  return arg.length === 2 && arg.startsWith("-") && flagByShort(flags, arg.slice(1)) !== undefined;
}

function checkPositionals(command: CommandDefinition, given: readonly string[]): void {
  const declared = command.positionals;
  const last = declared.at(-1);
  const missing = declared.slice(given.length).filter((p) => !p.optional);
  if (missing.length > 0) {
    // What must be given, without the optional tail ([options], [-- <provider args>]): the line stays short.
    const required = usageParts(command).filter((part) => !part.startsWith("["));
    throw usageError(
      `missing ${missing.map(positionalText).join(" ")}: harness-tool ${command.name} ${required.join(" ")}`,
    );
  }
  if (!last?.variadic && given.length > declared.length) {
    const extra = given.slice(declared.length);
    throw usageError(
      `unexpected argument${extra.length > 1 ? "s" : ""} ${extra.map((a) => JSON.stringify(a)).join(" ")}${command.providerArgs ? " (arguments for the provider go after --)" : ""}`,
    );
  }
}

function positionalText(p: PositionalDefinition): string {
  const inner = `${p.name}${p.variadic ? " ..." : ""}`;
  return p.optional ? `[${inner}]` : `<${inner}>`;
}

/** The command's arguments as one line: positionals, required flags, `[options]`, `[-- ...]`. */
export function usageLine(command: CommandDefinition): string {
  return usageParts(command).join(" ");
}

function usageParts(command: CommandDefinition): string[] {
  const parts = command.positionals.map(positionalText);
  for (const [name, flag] of Object.entries(command.flags)) {
    if (flag.type === "string" && flag.required) parts.push(`--${name} <${flag.value}>`);
  }
  if (Object.values(command.flags).some((f) => f.type === "boolean" || !f.required)) parts.push("[options]");
  if (command.providerArgs) parts.push("[-- <provider args>]");
  return parts;
}

function flagLabel(name: string, flag: FlagDefinition): string {
  const long = `--${name}${flag.type === "string" ? ` <${flag.value}>` : ""}`;
  return flag.short ? `-${flag.short}, ${long}` : `    ${long}`;
}

function flagDescription(flag: FlagDefinition): string {
  if (flag.type === "boolean") return flag.description;
  const notes = [
    flag.required ? "required" : "",
    flag.default !== undefined ? `default: ${flag.default}` : "",
    flag.multiple ? "may be repeated" : "",
  ].filter((n) => n !== "");
  return notes.length > 0 ? `${flag.description} (${notes.join("; ")})` : flag.description;
}

/** Two columns: labels padded to the widest, descriptions wrapped to the width left. */
function twoColumns(rows: readonly (readonly [string, string])[], width: number): string[] {
  const labelWidth = Math.min(Math.max(...rows.map(([label]) => label.length)), 34);
  const textWidth = Math.max(30, width - 2 - labelWidth - 2);
  const lines: string[] = [];
  for (const [label, text] of rows) {
    const wrapped = wrapText(text, textWidth);
    if (label.length > labelWidth) {
      lines.push(`  ${label}`);
      for (const w of wrapped) lines.push(`  ${" ".repeat(labelWidth)}  ${w}`);
    } else {
      wrapped.forEach((w, i) => {
        lines.push(`  ${(i === 0 ? label : "").padEnd(labelWidth)}  ${w}`);
      });
    }
  }
  return lines;
}

/** `harness-tool <name> --help`. */
export function renderCommandHelp(command: CommandDefinition, width: number): string {
  const lead = `Usage: harness-tool ${command.name}`;
  const lines: string[] = [];
  let line = lead;
  for (const part of usageParts(command)) {
    if (line.length + 1 + part.length > width && line.trim() !== "") {
      lines.push(line);
      line = " ".repeat("Usage: ".length);
    }
    line += line.trim() === "" ? part : ` ${part}`;
  }
  lines.push(line, "");
  lines.push(...wrapText(`${command.summary[0]?.toUpperCase() ?? ""}${command.summary.slice(1)}.`, width));
  for (const paragraph of (command.description ?? "").split(/\n\s*\n/).filter((p) => p.trim() !== "")) {
    lines.push("", ...wrapText(paragraph, width));
  }
  const flagRows = Object.entries({ ...command.flags, help: helpFlag }).map(
    ([name, flag]) => [flagLabel(name, flag), flagDescription(flag)] as const,
  );
  lines.push("", "Options:", ...twoColumns(flagRows, width));
  if (command.examples.length > 0) lines.push("", "Examples:", ...command.examples.map((e) => `  ${e}`));
  return `${lines.join("\n")}\n`;
}

/** `harness-tool --help`: every command with its summary. */
export function renderOverview(commands: readonly CommandDefinition[], width: number): string {
  const lines = [
    "harness-tool: build, run and test PluggableHarness tool providers",
    "",
    "Usage: harness-tool <command> [arguments] [options]",
    "",
    "Commands:",
    ...twoColumns(
      commands.map((c) => [c.name, c.summary] as const),
      width,
    ),
    "",
    "Options:",
    ...twoColumns(
      [
        ["-h, --help", "show this help; harness-tool <command> --help shows that command's flags and examples"],
        ["-v, --version", "print harness-tool's version"],
      ],
      width,
    ),
    "",
    ...wrapText(
      "<provider> is the provider's executable (e.g. dist/provider.mjs), started directly as the kernel starts it (no shell, a fresh process for every command); a .ts entry (run through tsx), a .js entry or a provider folder with src/main.ts is started with Node.",
      width,
    ),
  ];
  return `${lines.join("\n")}\n`;
}
