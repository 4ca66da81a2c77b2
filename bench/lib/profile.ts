/** Self time by package / file and by function from a V8 CPU profile (`node --cpu-prof`). */

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
export interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileSummary {
  /** Busy (not idle) sampled time in seconds. */
  totalSeconds: number;
  byPackage: { name: string; share: number }[];
  byFunction: { name: string; share: number }[];
}

/** Where a script lives: a package name, `@paygate/<pkg>: <file>`, node:*, or (native / V8). */
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

export function summarizeProfile(profile: CpuProfile, top = 15): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  // shares of busy time: (idle) is the process waiting (for the database, for requests), not work to remove
  const idle = new Set(profile.nodes.filter((n) => n.callFrame.functionName === '(idle)').map((n) => n.id));
  profile.samples.forEach((id, i) => {
    if (!idle.has(id)) self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  const total = [...self.values()].reduce((a, b) => a + b, 0) || 1;
  const fn = new Map<string, number>();
  const pkg = new Map<string, number>();
  for (const [id, t] of self) {
    const n = byId.get(id)!;
    const place = where(n.callFrame.url);
    const name = `${n.callFrame.functionName || '(anonymous)'} ${place}:${n.callFrame.lineNumber + 1}`;
    fn.set(name, (fn.get(name) ?? 0) + t);
    const p = place.split(':')[0]!;
    pkg.set(p, (pkg.get(p) ?? 0) + t);
  }
  const rank = (m: Map<string, number>) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, t]) => ({ name, share: t / total }));
  return { totalSeconds: total / 1e6, byPackage: rank(pkg), byFunction: rank(fn) };
}
