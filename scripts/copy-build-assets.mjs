// `tsc -b` compiles TypeScript only; the reference gateway also needs its SQL migrations beside the compiled
// migrate.js (it reads them from `./migrations/` relative to itself).
// The copy mirrors the source: a migration removed or renamed in src must not linger in dist, where it would run.
import { copyFileSync, cpSync, mkdirSync, readdirSync, rmSync } from 'node:fs';

const from = 'packages/reference/src/db/migrations';
const to = 'packages/reference/dist/db/migrations';
rmSync(to, { recursive: true, force: true });
mkdirSync(to, { recursive: true });
cpSync(from, to, { recursive: true, filter: (path) => !path.includes('.') || path.endsWith('.sql') });

// Generated JavaScript modules and their declarations (the precompiled request validators, D160): tsc compiles .ts
// only, so the server's dist gets them copied beside the compiled code that imports them.
for (const [src, dist] of [['packages/server/src/generated', 'packages/server/dist/generated']]) {
  mkdirSync(dist, { recursive: true });
  for (const file of readdirSync(src))
    if (file.endsWith('.gen.js') || file.endsWith('.gen.d.ts')) copyFileSync(`${src}/${file}`, `${dist}/${file}`);
}
