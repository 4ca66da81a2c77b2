/**
 * Runs one `paygate` sub-command with the process's io until the `paygate` entry point registers it:
 *   tsx generators/src/cli/run-command.ts <diff|release> [args...]
 * Usage errors print the command's usage (exit 2); environment errors print their message (exit 3).
 */
import { EXIT, EnvironmentError, UsageError, type CliCommand, type CliIo } from './command.js';
import { command as diff } from './commands/diff.js';
import { command as release } from './commands/release.js';

const COMMANDS: readonly CliCommand[] = [diff, release];

const io: CliIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  cwd: process.cwd(),
};

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  const command = COMMANDS.find((c) => c.name === name);
  if (command === undefined) {
    io.stderr(`unknown command ${name ?? '(none)'}: expected one of ${COMMANDS.map((c) => c.name).join(', ')}\n`);
    return EXIT.usage;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`paygate ${command.name}: ${error.message}\n\n${command.usage}\n`);
      return EXIT.usage;
    }
    if (error instanceof EnvironmentError) {
      io.stderr(`paygate ${command.name}: ${error.message}\n`);
      return EXIT.environment;
    }
    throw error;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    io.stderr(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = EXIT.environment;
  },
);
