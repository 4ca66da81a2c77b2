/**
 * Runs one command with its `--help` and the exit-code contract of ./command.ts: a UsageError prints the message and
 * the usage (exit 2), an EnvironmentError the message (exit 3), neither with a stack trace.
 */
import { EnvironmentError, EXIT, UsageError, type CliCommand, type CliIo, type ExitCode } from './command.js';
import { explainUnknownFlag, flagsOf } from './did-you-mean.js';

export const HELP_FLAGS: ReadonlySet<string> = new Set(['--help', '-h']);

export async function runCommand(command: CliCommand, argv: readonly string[], io: CliIo): Promise<ExitCode> {
  if (argv.some((arg) => HELP_FLAGS.has(arg))) {
    io.stdout(`${command.usage}\n`);
    return EXIT.ok;
  }
  try {
    return await command.run(argv, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`${prefixed(command, explainUnknownFlag(error.message, flagsOf(command.usage)))}\n\n${command.usage}\n`);
      return EXIT.usage;
    }
    if (error instanceof EnvironmentError) {
      io.stderr(`${prefixed(command, error.message)}\n`);
      return EXIT.environment;
    }
    // Not a user error: a bug in paygate, so the stack is what a report needs.
    io.stderr(
      `paygate ${command.name}: internal error (please report it with this output):\n${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    return EXIT.failed;
  }
}

/**
 * `paygate <name>: message`, unless the message already starts with `paygate <name>` (a runtime's own message, such as
 * the gateway's "paygate serve takes only --workers ..."): one prefix, never two (D290 did you mean for mistyped commands).
 */
function prefixed(command: CliCommand, message: string): string {
  return message.startsWith(`paygate ${command.name}`) ? message : `paygate ${command.name}: ${message}`;
}
