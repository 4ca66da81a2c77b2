/**
 * One spec through the generation pipeline as bench/generate.ts runs it (`paygate generate`'s default lint, reported;
 * contract + server + client), printing the CPU of each step and the bytes of each emitted file. For profiles:
 * `node --cpu-prof --import tsx bench/tools/generate-breakdown.ts stripe`. Spec keys: github, and those of
 * test/fixtures/realworld/specs.ts.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generate } from '../../generators/src/pipeline.js';
import { REALWORLD_SPECS } from '../../test/fixtures/realworld/specs.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const key = process.argv[2] ?? 'stripe';
const spec =
  key === 'github'
    ? { openapi: 'node_modules/@octokit/openapi/generated/api.github.com.json', targets: ['contract', 'server', 'client'] as const }
    : REALWORLD_SPECS.find((s) => s.name === key);
if (spec === undefined) throw new Error(`unknown spec ${key}`);
const cpu0 = process.cpuUsage();
let last = process.cpuUsage();
const { files } = await generate({
  rootDir: ROOT,
  openapi: spec.openapi,
  asyncapi: null,
  lint: 'report',
  targets: spec.targets,
  out: { contract: 'generated/contract', server: 'generated/server', client: 'generated/client', webhooks: 'generated/webhooks' },
  contractImport: 'relative',
  runtimeImport: 'package',
  onProgress: (step, ms) => {
    const c = process.cpuUsage(last);
    last = process.cpuUsage();
    console.log(`${step.padEnd(40)} wall ${(ms / 1000).toFixed(2)} s  cpu ${((c.user + c.system) / 1e6).toFixed(2)} s`);
  },
});
const total = process.cpuUsage(cpu0);
let bytes = 0;
for (const f of files) {
  const n = Buffer.byteLength(f.contents);
  bytes += n;
  if (process.env['OUT'] !== undefined) {
    mkdirSync(path.dirname(path.join(process.env['OUT'], f.path)), { recursive: true });
    writeFileSync(path.join(process.env['OUT'], f.path), f.contents);
  }
  console.log(`${f.path.padEnd(60)} ${(n / 1024).toFixed(0).padStart(8)} KiB`);
}
console.log(`total ${(bytes / 1024 / 1024).toFixed(2)} MiB, cpu ${((total.user + total.system) / 1e6).toFixed(2)} s`);
