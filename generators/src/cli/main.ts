/**
 * The `paygate` entry point (bin: generators/bin/paygate.js): dispatches to the commands of ./commands/index.ts,
 * prints help, and turns UsageError / EnvironmentError into their exit codes without a stack trace.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { EXIT, type CliCommand, type CliIo, type ExitCode } from './command.js';
import { COMMANDS, type CommandEntry } from './commands/index.js';
import { didYouMean } from './did-you-mean.js';
import { HELP_FLAGS, runCommand } from './run-command.js';

/** A command as main.ts takes it: loaded, or an entry of ./commands/index.ts loaded when it runs. */
type AnyCommand = CliCommand | CommandEntry;

function version(): string {
  const pkg = JSON.parse(readFileSync(fileURLToPath(new URL('../../package.json', import.meta.url)), 'utf8')) as { version: string };
  return pkg.version;
}

/**
 * `paygate --help`: one screen (the commands and what to type next). Each command's flags and environment variables
 * are in `paygate <command> --help`, so the list of commands never scrolls away behind them.
 */
export function rootHelp(commands: readonly Pick<CliCommand, 'name' | 'summary'>[]): string {
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

paygate serve --help lists the gateway's environment variables (PORT, DATABASE_URL, REDIS_URL, ...).
`;
}

/** Runs one command line; resolves to the exit code (the bin sets process.exitCode from it). */
export async function runCli(argv: readonly string[], io: CliIo, commands: readonly AnyCommand[] = COMMANDS): Promise<ExitCode> {
  const [name, ...rest] = argv;
  const help = () => rootHelp(commands);
  if (name === undefined) {
    io.stderr(help());
    return EXIT.usage;
  }
  if (HELP_FLAGS.has(name) || name === 'help') {
    io.stdout(help());
    return EXIT.ok;
  }
  if (name === '--version' || name === '-v') {
    io.stdout(`${version()}\n`);
    return EXIT.ok;
  }
  const command = commands.find((c) => c.name === name);
  if (command === undefined) {
    const names = commands.map((c) => c.name);
    // a flag first (`paygate --verison`) is a mistyped root flag; anything else a mistyped command (D290 did you mean for mistyped commands)
    const what = name.startsWith('-') ? 'flag' : 'command';
    const hint = didYouMean(name, name.startsWith('-') ? ['--help', '--version'] : names);
    io.stderr(`paygate: unknown ${what} ${JSON.stringify(name)}.${hint} Commands: ${names.join(', ')} (paygate --help).\n`);
    return EXIT.usage;
  }
  return runCommand('load' in command ? await command.load() : command, rest, io);
}

export { processIo } from './standalone.js';
