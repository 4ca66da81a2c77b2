#!/usr/bin/env node
// The `paygate` command of @paygate/cli. Runs the compiled CLI (in this repository: `npm run build` first, or from
// source: `npx tsx --conditions=source generators/src/cli/main.ts`).
import { processIo, standaloneCommand } from '../dist/cli/standalone.js';
import { runCommand } from '../dist/cli/run-command.js';

const argv = process.argv.slice(2);
// `paygate serve` runs without loading the other commands (their generators); see src/cli/standalone.ts
const standalone = await standaloneCommand(argv);
if (standalone !== undefined) {
  process.exitCode = await runCommand(standalone, argv.slice(1), processIo());
} else {
  const { runCli } = await import('../dist/cli/main.js');
  process.exitCode = await runCli(argv, processIo());
}
