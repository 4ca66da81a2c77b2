/**
 * `tsx bench/profile-summary.ts <file.cpuprofile> [top]`: self time by function and by package/file from a V8 CPU
 * profile (`BENCH_CPU_PROF=1 npm run bench` writes one per server), to find where a missed budget goes.
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const [file, topArg] = process.argv.slice(2);
if (!file) {
  console.error('usage: tsx bench/profile-summary.ts <file.cpuprofile> [top]');
  process.exit(1);
}
const top = Number(topArg ?? 25);
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map<number, number>();
profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
const total = [...self.values()].reduce((a, b) => a + b, 0);

function where(url: string): string {
  if (url === '') return '(native / V8)';
  const nm = url.lastIndexOf('node_modules/');
  if (nm !== -1) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/');
    return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  if (url.startsWith('node:')) return url;
  const m = /packages\/([^/]+)\/(?:dist|src)\/(.*)$/.exec(url);
  return m ? `@paygate/${m[1]}: ${m[2]}` : url.replace(/^file:\/\//, '');
}

const fn = new Map<string, number>();
const pkg = new Map<string, number>();
for (const [id, t] of self) {
  const n = byId.get(id)!;
  const name = `${n.callFrame.functionName || '(anonymous)'} ${where(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;
  fn.set(name, (fn.get(name) ?? 0) + t);
  const p = where(n.callFrame.url).split(':')[0]!;
  pkg.set(p, (pkg.get(p) ?? 0) + t);
}
const show = (title: string, m: Map<string, number>) => {
  console.log(`\n${title} (self time, ${(total / 1e6).toFixed(1)} s sampled)`);
  for (const [k, v] of [...m].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${((v / total) * 100).toFixed(1).padStart(5)}%  ${k}`);
};
show('By package / file', pkg);
show('By function', fn);
