#!/usr/bin/env node
// The `paygate` command. Runs the compiled CLI (build first: `npm run build -w @paygate/reference` after its
// workspace dependencies, or from source: `npx tsx --conditions=source packages/reference/src/cli.ts serve`).
import { main } from '../dist/cli.js';

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== undefined) process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`paygate: ${err?.stack ? err.stack : String(err)}\n`);
    process.exitCode = 1;
  },
);
