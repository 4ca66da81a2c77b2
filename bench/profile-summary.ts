/**
 * `tsx bench/profile-summary.ts <file.cpuprofile> [top]`: self time by function and by package/file from a V8 CPU
 * profile (`BENCH_CPU_PROF=1 npm run bench` writes one per server), to find where a missed budget goes.
 */
import { readFileSync } from 'node:fs';
import { summarizeProfile, type CpuProfile } from './lib/profile.js';

const [file, topArg] = process.argv.slice(2);
if (!file) {
  console.error('usage: tsx bench/profile-summary.ts <file.cpuprofile> [top]  (profiles: BENCH_CPU_PROF=1 npm run bench)');
  process.exit(1);
}
const summary = summarizeProfile(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile, Number(topArg ?? 25));
const show = (title: string, rows: { name: string; share: number }[]) => {
  console.log(`\n${title} (self time, ${summary.totalSeconds.toFixed(1)} s sampled)`);
  for (const r of rows) console.log(`${(r.share * 100).toFixed(1).padStart(5)}%  ${r.name}`);
};
show('By package / file', summary.byPackage);
show('By function', summary.byFunction);
