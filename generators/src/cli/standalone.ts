/**
 * Commands the bin runs without loading the others (D88 paygate serve loads only what it runs). `paygate serve` is the gateway process: importing every
 * command (./commands/index.ts) would load the generators it never uses (Redocly, openapi-typescript, the emitters and
 * templates, api-smart-diff: much of the process's memory and start-up, docs/benchmarks.md#serve-without-the-generators). Only what `serve` itself
 * imports is loaded here; every other command line goes through main.ts's runCli as before.
 */
import type { CliCommand, CliIo } from './command.js';

/** The command a command line names when it can run alone, else undefined (main.ts's runCli takes the line). */
export async function standaloneCommand(argv: readonly string[]): Promise<CliCommand | undefined> {
  if (argv[0] !== 'serve') return undefined;
  const { loadServeCommand } = await import('./commands/serve.js');
  return loadServeCommand();
}

/** The process's own streams and working directory. */
export function processIo(): CliIo {
  return { stdout: (text) => process.stdout.write(text), stderr: (text) => process.stderr.write(text), cwd: process.cwd() };
}
