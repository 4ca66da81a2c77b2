/**
 * The contract every `paygate` sub-command implements. The `paygate` entry point keeps one list of these
 * (one line per command), prints their `summary` in `paygate --help` and their `usage` in `paygate <name> --help`.
 *
 * Exit codes are the same for every command so CI can tell "your change is wrong" from "you called it wrong":
 */
export const EXIT = {
  /** Everything checked passed (or the work was done). */
  ok: 0,
  /** The command ran and found a problem the user must fix: drift, a breaking change, a contract violation. */
  failed: 1,
  /** The command line is wrong: unknown flag, missing value. The message names the flag and shows the usage. */
  usage: 2,
  /** The environment is wrong: a file that does not exist, a spec that does not parse, a server that cannot be reached. */
  environment: 3,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** Where a command writes; injected so tests capture output without spawning a process. */
export interface CliIo {
  /** Results: reports, file lists, JSON. */
  stdout(text: string): void;
  /** Progress and errors: what is being done, what went wrong and what to do next. */
  stderr(text: string): void;
  /** The directory relative paths are resolved against. */
  cwd: string;
}

export interface CliCommand {
  /** The word after `paygate`, e.g. `diff`. */
  name: string;
  /** One line for `paygate --help`. */
  summary: string;
  /** The full help text printed by `paygate <name> --help` (flags, defaults, exit codes, an example). */
  usage: string;
  /** Runs with the arguments after the command name; resolves to the exit code, never calls `process.exit`. */
  run(argv: readonly string[], io: CliIo): Promise<ExitCode>;
}

/** An error in the command line: the entry point prints the message and the command's usage, and exits 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** An error in the environment (missing file, unreachable server): printed without a stack trace, exit 3. */
export class EnvironmentError extends Error {
  override name = 'EnvironmentError';
}
