/**
 * `BENCH_ONLY=cli`: how lean the `paygate` command is (D125 paygate contract checks any API against its spec). Two figures, each beside a baseline from the same run:
 *  - `paygate --version` wall time (the built bin, median of 7 spawns) against `node -e 0` on the same machine;
 *    goal < 300 ms;
 *  - the CLI's install size: the files of @paygate/cli and of every package its `dependencies` pull in (resolved the
 *    way Node resolves them in this node_modules, optional peers left out, as `npm install -D @paygate/cli` installs),
 *    against the same closure with the reference gateway added (what the CLI installed before D125); goal: none of the
 *    gateway's own dependencies (PGlite, pg, ioredis, pino) in the CLI's closure.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Budget } from '../lib/report.js';

export interface CliBenchRow {
  section: 'cli';
  name: string;
  ms?: number;
  bytes?: number;
  note: string;
  [k: string]: unknown;
}

const GATEWAY_DEPENDENCIES = ['@electric-sql/pglite', 'pg', 'ioredis', 'pino'];
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

function timeSpawn(args: string[], cwd: string, runs = 7): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    execFileSync(process.execPath, args, { cwd, stdio: 'ignore', env: { ...process.env, NODE_ENV: 'production' } });
    times.push(performance.now() - t);
  }
  return median(times);
}

/** Bytes of a directory's files, without nested node_modules (those are packages of their own) and without .map files. */
function dirBytes(dir: string, skip: (name: string) => boolean): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (skip(entry.name)) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) total += dirBytes(full, () => false);
    else if (entry.isFile()) total += statSync(full).size;
  }
  return total;
}

interface PackageJson {
  name: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  files?: string[];
}

/** Where Node finds `name` from `fromDir` (walking up node_modules folders). */
function resolvePackageDir(name: string, fromDir: string): string | undefined {
  for (let dir = fromDir; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', name);
    if (existsSync(path.join(candidate, 'package.json'))) return realpathSync(candidate);
    if (path.dirname(dir) === dir) return undefined;
  }
}

/** A workspace package counts its published files (package.json `files`), a registry one its whole folder. */
function packageBytes(dir: string, pkg: PackageJson, root: string): number {
  const isWorkspace = !dir.includes(`${path.sep}node_modules${path.sep}`) && dir.startsWith(root);
  if (!isWorkspace || pkg.files === undefined) return dirBytes(dir, (n) => n === 'node_modules');
  let total = statSync(path.join(dir, 'package.json')).size;
  for (const entry of pkg.files.filter((f) => !f.startsWith('!'))) {
    const full = path.join(dir, entry);
    if (!existsSync(full)) continue;
    total += lstatSync(full).isDirectory()
      ? dirBytes(full, (n) => n.endsWith('.map') || n.includes('.test.') || n === '.tsbuildinfo')
      : statSync(full).size;
  }
  return total;
}

/** The install closure of a package: every package its dependencies (and required peers) pull in, with sizes. */
export function installClosure(startDir: string, root: string, extra: string[] = []): { bytes: number; packages: Set<string> } {
  const seen = new Map<string, string>();
  let bytes = 0;
  const visit = (dir: string): void => {
    if (seen.has(dir)) return;
    const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as PackageJson;
    seen.set(dir, pkg.name);
    bytes += packageBytes(dir, pkg, root);
    const requiredPeers = Object.keys(pkg.peerDependencies ?? {}).filter((n) => pkg.peerDependenciesMeta?.[n]?.optional !== true);
    for (const name of [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.optionalDependencies ?? {}), ...requiredPeers]) {
      const found = resolvePackageDir(name, dir);
      if (found !== undefined) visit(found);
    }
  };
  visit(startDir);
  for (const name of extra) {
    const found = resolvePackageDir(name, startDir);
    if (found !== undefined) visit(found);
  }
  return { bytes, packages: new Set(seen.values()) };
}

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;

export async function runCliBench(root: string, log: (line: string) => void): Promise<{ rows: CliBenchRow[]; budgets: Budget[] }> {
  log('CLI: paygate --version (median of 7 spawns) and the install size of @paygate/cli');
  const bin = path.join(root, 'generators/bin/paygate.js');
  const nodeMs = timeSpawn(['-e', '0'], root);
  const versionMs = timeSpawn([bin, '--version'], root);
  log(`  node -e 0: ${nodeMs.toFixed(0)} ms; paygate --version: ${versionMs.toFixed(0)} ms (${(versionMs / nodeMs).toFixed(1)}x)`);
  const cliDir = path.join(root, 'generators');
  const lean = installClosure(cliDir, root);
  const withGateway = installClosure(cliDir, root, ['@paygate/reference']);
  const gatewayInLean = GATEWAY_DEPENDENCIES.filter((n) => lean.packages.has(n));
  log(
    `  @paygate/cli install: ${mb(lean.bytes)} in ${lean.packages.size} packages; with the reference gateway: ${mb(withGateway.bytes)} in ${withGateway.packages.size}`,
  );
  const rows: CliBenchRow[] = [
    { section: 'cli', name: 'node -e 0', ms: nodeMs, note: `${nodeMs.toFixed(0)} ms (baseline)` },
    {
      section: 'cli',
      name: 'paygate --version',
      ms: versionMs,
      note: `${versionMs.toFixed(0)} ms, ${(versionMs / nodeMs).toFixed(1)}x node -e 0`,
    },
    {
      section: 'cli',
      name: '@paygate/cli install size',
      bytes: lean.bytes,
      note: `${mb(lean.bytes)}, ${lean.packages.size} packages (${((lean.bytes / withGateway.bytes) * 100).toFixed(0)}% of the closure with the gateway)`,
    },
    {
      section: 'cli',
      name: '@paygate/cli + @paygate/reference',
      bytes: withGateway.bytes,
      note: `${mb(withGateway.bytes)}, ${withGateway.packages.size} packages (baseline: what the CLI installed before D125)`,
    },
  ];
  const budgets: Budget[] = [
    {
      name: 'paygate --version wall time',
      target: '< 300 ms',
      value: `${versionMs.toFixed(0)} ms (node -e 0: ${nodeMs.toFixed(0)} ms)`,
      met: versionMs < 300,
    },
    {
      name: 'CLI install without the gateway (PGlite, pg, ioredis, pino)',
      target: 'none of them',
      value: `${mb(lean.bytes)} vs ${mb(withGateway.bytes)} with the gateway${gatewayInLean.length > 0 ? `; pulled in: ${gatewayInLean.join(', ')}` : ''}`,
      met: gatewayInLean.length === 0,
    },
  ];
  return { rows, budgets };
}
