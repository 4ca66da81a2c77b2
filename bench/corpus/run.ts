/**
 * `npm run corpus`: Paygate and openapi-typescript 7 on the APIs.guru directory (issue 30's corpus runner; a
 * benchmark, never part of `npm test`, whose fixed guard set is test/generators/realworld + vendor fixtures).
 *
 *   npm run corpus -- --sample 20          a stride sample of 20 documents
 *   npm run corpus -- --shard 3/8          every 8th document from the 3rd (shards of a whole-directory run)
 *   npm run corpus -- --documents a.json,b/c.json
 *   npm run corpus -- --merge              docs/corpus.md from every results file
 * Flags: --workers N (default 2), --out FILE (results file; default bench/corpus/results/<selection>.json).
 *
 * Each document runs in one of a few reused worker processes (pool.ts, worker.ts), bounded in time and memory; the
 * results file is rewritten after every document, so a run stopped midway keeps what it did. Run it niced on a shared
 * machine: `nice -n 19 npm run corpus -- --shard 1/8`.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import ts from 'typescript';
import { DIRECTORY_DOCUMENTS, DIRECTORY_PACKAGE, DIRECTORY_VERSION, listDocuments, shardOf, strideSample } from './directory.js';
import { WorkerPool } from './pool.js';
import { writeCorpusReport } from './report.js';
import type { ShardFile } from './types.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const RESULTS = path.join(ROOT, 'bench/corpus/results');
const started = performance.now();
const log = (line: string) => console.log(`[${((performance.now() - started) / 1000).toFixed(0).padStart(5)} s] ${line}`);

function usage(message: string): never {
  console.error(`${message}\nUsage: npm run corpus -- [--sample N | --shard i/n | --documents a,b] [--workers N] [--out FILE] | --merge`);
  process.exit(2);
}

const { values: flags } = (() => {
  try {
    return parseArgs({
      options: {
        sample: { type: 'string' },
        shard: { type: 'string' },
        documents: { type: 'string' },
        merge: { type: 'boolean' },
        workers: { type: 'string' },
        out: { type: 'string' },
      },
      allowPositionals: false,
      strict: true,
    });
  } catch (error) {
    return usage((error as Error).message);
  }
})();

if (flags.merge === true) {
  const { file, documents } = writeCorpusReport(ROOT, RESULTS);
  console.log(`wrote ${path.relative(ROOT, file)} from ${documents} document result(s)`);
  process.exit(0);
}

const all = listDocuments(ROOT);
if (all.length !== DIRECTORY_DOCUMENTS)
  log(`warning: ${all.length} documents found, ${DIRECTORY_PACKAGE}@${DIRECTORY_VERSION} has ${DIRECTORY_DOCUMENTS}`);
let selection: string;
let shard: ShardFile['shard'] = null;
let chosen = all;
if (flags.shard !== undefined) {
  const m = /^(\d+)\/(\d+)$/.exec(flags.shard);
  if (m === null || Number(m[1]) < 1 || Number(m[1]) > Number(m[2])) usage(`--shard takes i/n with 1 <= i <= n, not ${flags.shard}`);
  shard = { index: Number(m[1]), count: Number(m[2]) };
  chosen = shardOf(all, shard.index, shard.count);
  selection = `shard-${shard.index}-of-${shard.count}`;
} else if (flags.documents !== undefined) {
  const wanted = flags.documents.split(',').map((d) => d.trim().replace(/^api\//, ''));
  const unknown = wanted.filter((w) => !all.some((d) => d.document === w));
  if (unknown.length > 0) usage(`not in the directory: ${unknown.join(', ')} (name them as under api/, e.g. stripe.com.json)`);
  chosen = all.filter((d) => wanted.includes(d.document));
  selection = `documents-${wanted.length}`;
} else {
  const n = Number(flags.sample ?? 20);
  if (!Number.isInteger(n) || n < 1) usage(`--sample takes a positive whole number, not ${flags.sample}`);
  chosen = strideSample(all, n);
  selection = `sample-${n}`;
}
const workers = Number(flags.workers ?? 2);
const out = path.resolve(flags.out ?? path.join(RESULTS, `${selection}.json`));
mkdirSync(path.dirname(out), { recursive: true });

const require = createRequire(import.meta.url);
const peerVersion = (JSON.parse(readFileSync(require.resolve('openapi-typescript/package.json'), 'utf8')) as { version: string }).version;
const file: ShardFile = {
  directory: { package: DIRECTORY_PACKAGE, version: DIRECTORY_VERSION, documents: all.length },
  selection,
  shard,
  planned: chosen.map((d) => d.document),
  complete: false,
  startedAt: new Date().toISOString(),
  finishedAt: null,
  wallMs: 0,
  peakWorkerMiB: 0,
  peakRunnerMiB: 0,
  workers,
  tools: { node: process.version, typescript: ts.version, openapiTypescript: peerVersion },
  results: [],
};
const save = () => {
  file.wallMs = Math.round(performance.now() - started);
  file.peakRunnerMiB = Math.max(file.peakRunnerMiB, Math.round(process.memoryUsage().rss / 2 ** 20));
  // one line per document: a later run of the shard diffs by document, and the file stays small
  const { results, ...head } = file;
  const body = results.map((r) => JSON.stringify(r)).join(',\n');
  writeFileSync(out, `${JSON.stringify(head, null, 1).replace(/\n}$/, '')},\n "results": [\n${body}\n]}\n`);
};

log(
  `${selection}: ${chosen.length} of ${all.length} documents (${DIRECTORY_PACKAGE}@${DIRECTORY_VERSION}), ${workers} worker(s), results in ${path.relative(ROOT, out)}`,
);
const pool = new WorkerPool({
  root: ROOT,
  workers,
  // a minute for the small ones, more per MB: GitHub's 13 MB document takes minutes of tsc on a busy machine
  timeoutMs: (bytes) => Math.min(1_800_000, 180_000 + (bytes / 1e6) * 60_000),
  memoryBoundMiB: Math.min(8192, Math.floor(os.totalmem() / 2 ** 20 / (workers + 1))),
  recycleMiB: 1536,
  log,
});
await pool.run(
  chosen.map((d) => ({ ...d, root: ROOT })),
  async (result) => {
    file.results.push(result);
    file.peakWorkerMiB = Math.max(file.peakWorkerMiB, pool.peakWorkerMiB, result.rssMiB);
    save();
    log(
      `${String(file.results.length).padStart(4)}/${chosen.length} ${result.document} (${(result.bytes / 1024).toFixed(0)} KB, ${result.operations} ops): paygate ${result.paygate.outcome}, openapi-typescript ${result.peer.outcome} in ${(result.ms / 1000).toFixed(1)} s`,
    );
  },
);
file.complete = true;
file.finishedAt = new Date().toISOString();
save();
log(`done: ${path.relative(ROOT, out)}; \`npm run corpus -- --merge\` writes docs/corpus.md`);
if (!existsSync(out)) process.exitCode = 1;
