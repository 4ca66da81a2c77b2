/**
 * The `paygate` entry point (bin: generators/bin/paygate.js): dispatches to the commands of ./commands/index.ts,
 * prints help, and turns UsageError / EnvironmentError into their exit codes without a stack trace.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { EXIT, type CliCommand, type CliIo, type ExitCode } from './command.js';
import { COMMANDS } from './commands/index.js';
import { SERVE_ENVIRONMENT } from './commands/serve.js';
import { HELP_FLAGS, runCommand } from './run-command.js';

function version(): string {
  const pkg = JSON.parse(readFileSync(fileURLToPath(new URL('../../package.json', import.meta.url)), 'utf8')) as { version: string };
  return pkg.version;
}

export function rootHelp(commands: readonly CliCommand[]): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return `paygate: OpenAPI-first toolkit for the Paygate API and any API like it

Usage:
  paygate <command> [flags]     run a command
  paygate <command> --help      flags, defaults, exit codes and an example of one command
  paygate --help | --version

Commands:
${commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`).join('\n')}

Exit codes (every command): 0 ok, 1 a problem to fix (drift, spec errors, contract violations), 2 wrong command
line, 3 wrong environment (missing file, unreachable server).

paygate serve is configured by these variables:
${SERVE_ENVIRONMENT}`;
}

/** Runs one command line; resolves to the exit code (the bin sets process.exitCode from it). */
export async function runCli(argv: readonly string[], io: CliIo, commands: readonly CliCommand[] = COMMANDS): Promise<ExitCode> {
  const [name, ...rest] = argv;
  if (name === undefined) {
    io.stderr(rootHelp(commands));
    return EXIT.usage;
  }
  if (HELP_FLAGS.has(name) || name === 'help') {
    io.stdout(rootHelp(commands));
    return EXIT.ok;
  }
  if (name === '--version' || name === '-v') {
    io.stdout(`${version()}\n`);
    return EXIT.ok;
  }
  const command = commands.find((c) => c.name === name);
  if (command === undefined) {
    io.stderr(`paygate: unknown command ${JSON.stringify(name)}. Commands: ${commands.map((c) => c.name).join(', ')} (paygate --help).\n`);
    return EXIT.usage;
  }
  return runCommand(command, rest, io);
}

export { processIo } from './standalone.js';
