/**
 * How a CLI command declares itself: its name, a one-line summary, its positional arguments, its
 * flags (each with a description), examples, and the function that runs it. The command line is
 * parsed and the help text is rendered from this one declaration (cli/commands/command-line.ts), so a
 * command's usage, its `--help` and what it accepts cannot drift apart.
 */

/** A flag such as `--config <file.json>` or `--json`. */
export type FlagDefinition =
  | {
      readonly type: "boolean";
      readonly description: string;
      readonly short?: string;
    }
  | {
      readonly type: "string";
      readonly description: string;
      /** The placeholder shown in help, e.g. "file.json" in `--config <file.json>`. */
      readonly value: string;
      readonly short?: string;
      /** May be given more than once; the values arrive as an array. */
      readonly multiple?: boolean;
      readonly default?: string;
      /** The command refuses to run without it. */
      readonly required?: boolean;
    };

/** The flags of one command, by long name (without the dashes). */
export type FlagDefinitions = { readonly [name: string]: FlagDefinition };

/** The parsed value of each flag: booleans default to false, repeated flags to []. */
export type FlagValues<F extends FlagDefinitions> = {
  -readonly [K in keyof F]: F[K] extends { type: "boolean" }
    ? boolean
    : F[K] extends { multiple: true }
      ? string[]
      : F[K] extends { default: string } | { required: true }
        ? string
        : string | undefined;
};

/** A positional argument, e.g. `<provider>`, `[dir]`, `<handlers.ts ...>`. */
export interface PositionalDefinition {
  readonly name: string;
  readonly optional?: boolean;
  /** Takes every remaining argument (one or more, or none when optional). Last only. */
  readonly variadic?: boolean;
}

/** Where a command writes. */
export interface CommandStreams {
  readonly out: NodeJS.WriteStream;
  readonly err: NodeJS.WriteStream;
}

/** What a command receives once its command line parsed. */
export interface CommandInput<F extends FlagDefinitions> {
  readonly values: FlagValues<F>;
  readonly positionals: readonly string[];
  /** The arguments after `--`, for the provider itself (commands with `providerArgs` only). */
  readonly providerArgs: readonly string[];
  /** True when the command line named nothing at all (init asks on a terminal then). */
  readonly empty: boolean;
}

/** One command of the CLI. */
export interface CommandDefinition<F extends FlagDefinitions = FlagDefinitions> {
  readonly name: string;
  /** One line, lower case, no final period: shown in `harness-tool --help`. */
  readonly summary: string;
  /** Paragraphs shown under the usage line of `harness-tool <name> --help`. */
  readonly description?: string;
  readonly positionals: readonly PositionalDefinition[];
  readonly flags: F;
  /** Accepts `-- <provider args>` after its own arguments. */
  readonly providerArgs?: boolean;
  /** Complete command lines, starting with `harness-tool`. */
  readonly examples: readonly string[];
  /** Runs the command; resolves to its exit code. Throws UsageError for a usage mistake (exit 2). */
  run(input: CommandInput<F>, streams: CommandStreams): Promise<number>;
}

/**
 * Declares a command. The identity function exists for its type parameter: `values` in `run` is
 * typed from the flags declared beside it.
 */
export function defineCommand<const F extends FlagDefinitions>(definition: CommandDefinition<F>): CommandDefinition {
  return definition as unknown as CommandDefinition;
}
