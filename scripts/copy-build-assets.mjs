// `tsc -b` compiles TypeScript only; the reference gateway also needs its SQL migrations beside the compiled
// migrate.js (it reads them from `./migrations/` relative to itself).
import { cpSync, mkdirSync } from 'node:fs';

const from = 'packages/reference/src/db/migrations';
const to = 'packages/reference/dist/db/migrations';
mkdirSync(to, { recursive: true });
cpSync(from, to, { recursive: true, filter: (path) => !path.includes('.') || path.endsWith('.sql') });
