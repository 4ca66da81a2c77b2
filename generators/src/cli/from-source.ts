/**
 * Runs `paygate` from its TypeScript sources, for this repository's npm scripts (`npm run diff`, `compat`, `release`)
 * so they need no build: `tsx --conditions=source generators/src/cli/from-source.ts <command> [args...]`.
 * Installed users run the bin (`generators/bin/paygate.js`), which loads the compiled `dist/cli/main.js`.
 */
import { processIo, runCli } from './main.js';

process.exitCode = await runCli(process.argv.slice(2), processIo());
