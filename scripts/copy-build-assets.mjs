// `tsc -b` compiles TypeScript only; the reference gateway also needs its SQL migrations beside the compiled
// migrate.js (it reads them from `./migrations/` relative to itself).
// The copy mirrors the source: a migration removed or renamed in src must not linger in dist, where it would run.
import { cpSync, mkdirSync, rmSync } from 'node:fs';

const from = 'packages/reference/src/db/migrations';
const to = 'packages/reference/dist/db/migrations';
rmSync(to, { recursive: true, force: true });
mkdirSync(to, { recursive: true });
cpSync(from, to, { recursive: true, filter: (path) => !path.includes('.') || path.endsWith('.sql') });
