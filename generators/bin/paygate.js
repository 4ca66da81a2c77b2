#!/usr/bin/env node
// The `paygate` command of @paygate/cli. Runs the compiled CLI (in this repository: `npm run build` first, or from
// source: `npx tsx --conditions=source generators/src/cli/main.ts`).
import { processIo, runCli } from '../dist/cli/main.js';

process.exitCode = await runCli(process.argv.slice(2), processIo());
