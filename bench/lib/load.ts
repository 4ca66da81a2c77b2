/** Load generation (autocannon, in the orchestrator process) and server-side sampling (RSS from /proc). */
import autocannon, { type AutocannonRequest } from 'autocannon';
import { readdirSync, readFileSync } from 'node:fs';

export interface LoadOptions {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** Paths each connection requests in turn (instead of the url's own path), e.g. several orders. */
  paths?: readonly string[];
  /** Called per request (unique bodies); returns the request to send. */
  setupRequest?: (req: AutocannonRequest) => AutocannonRequest;
  connections: number;
  durationSec: number;
  warmupSec: number;
  /** Server process to sample (VmRSS, every 100 ms) during the measured run. */
  pid?: number;
}

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  /** Requests answered with something other than 2xx, plus socket errors and timeouts. */
  failures: number;
  total: number;
  rssPeakMiB: number | null;
  rssMeanMiB: number | null;
  /** Server CPU (the process and its descendants) during the measured run, in cores (1 = one core busy the whole time). */
  serverCpu: number | null;
  /** Whole-machine CPU busy during the measured run, in cores (load generator + server + database + anything else). */
  machineCpu: number;
}

/** utime + stime of a process, in seconds. */
export function cpuSeconds(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // clock ticks (USER_HZ = 100)
  } catch {
    return null;
  }
}

/** A process and its descendants (Prism serves from a forked child; `paygate serve` initialises PGlite in one). */
export function processTree(pid: number): number[] {
  const out = [pid];
  for (let i = 0; i < out.length; i++) {
    try {
      for (const task of readdirSync(`/proc/${out[i]}/task`)) {
        const children = readFileSync(`/proc/${out[i]}/task/${task}/children`, 'utf8').trim();
        if (children) out.push(...children.split(/\s+/).map(Number));
      }
    } catch {
      /* gone meanwhile */
    }
  }
  return out;
}

/** utime + stime of a process and its descendants, in seconds. */
export function treeCpuSeconds(pid: number): number | null {
  const own = cpuSeconds(pid);
  if (own === null) return null;
  return processTree(pid)
    .slice(1)
    .reduce((sum, child) => sum + (cpuSeconds(child) ?? 0), own);
}

/** Busy CPU seconds of the whole machine (all cores) from /proc/stat. */
export function machineBusySeconds(): number {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]!;
  const v = line.trim().split(/\s+/).slice(1).map(Number);
  const idle = (v[3] ?? 0) + (v[4] ?? 0);
  return (v.reduce((a, b) => a + b, 0) - idle) / 100;
}

/** VmRSS of a process in MiB (null once it is gone). */
function ownRssMiB(pid: number): number | null {
  try {
    const m = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/** VmRSS of a process and its descendants in MiB (null once it is gone). */
export function rssMiB(pid: number): number | null {
  const own = ownRssMiB(pid);
  if (own === null) return null;
  return processTree(pid)
    .slice(1)
    .reduce((sum, child) => sum + (ownRssMiB(child) ?? 0), own);
}

export class RssSampler {
  private samples: number[] = [];
  private timer: NodeJS.Timeout;
  constructor(
    private readonly pid: number,
    everyMs = 100,
  ) {
    this.timer = setInterval(() => this.take(), everyMs);
    this.take();
  }
  private take(): void {
    const v = rssMiB(this.pid);
    if (v !== null) this.samples.push(v);
  }
  stop(): { peak: number | null; mean: number | null } {
    clearInterval(this.timer);
    this.take();
    if (this.samples.length === 0) return { peak: null, mean: null };
    return { peak: Math.max(...this.samples), mean: this.samples.reduce((a, b) => a + b, 0) / this.samples.length };
  }
}

async function once(o: LoadOptions, durationSec: number) {
  const requests: AutocannonRequest[] | undefined = o.setupRequest
    ? [{ method: o.method ?? 'GET', ...(o.headers ? { headers: o.headers } : {}), setupRequest: (req) => o.setupRequest!(req) }]
    : o.paths
      ? o.paths.map((p) => ({ method: o.method ?? 'GET', path: p, ...(o.headers ? { headers: o.headers } : {}) }))
      : undefined;
  return autocannon({
    url: o.url,
    connections: o.connections,
    duration: durationSec,
    method: o.method ?? 'GET',
    ...(o.headers ? { headers: o.headers } : {}),
    ...(o.body !== undefined ? { body: o.body } : {}),
    ...(requests ? { requests } : {}),
    timeout: 10,
  });
}

/** A warm-up run (discarded), then the measured run with RSS sampling of `pid`. */
export async function load(o: LoadOptions): Promise<LoadResult> {
  if (o.warmupSec > 0) await once(o, o.warmupSec);
  const sampler = o.pid !== undefined ? new RssSampler(o.pid) : null;
  const cpu0 = o.pid !== undefined ? treeCpuSeconds(o.pid) : null;
  const busy0 = machineBusySeconds();
  const t0 = performance.now();
  const r = await once(o, o.durationSec);
  const wall = (performance.now() - t0) / 1000;
  const cpu1 = o.pid !== undefined ? treeCpuSeconds(o.pid) : null;
  const machineCpu = (machineBusySeconds() - busy0) / wall;
  const rss = sampler?.stop() ?? { peak: null, mean: null };
  return {
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    failures: r.non2xx + r.errors + r.timeouts,
    total: r.requests.total,
    rssPeakMiB: rss.peak,
    rssMeanMiB: rss.mean,
    serverCpu: cpu0 !== null && cpu1 !== null ? (cpu1 - cpu0) / wall : null,
    machineCpu,
  };
}
