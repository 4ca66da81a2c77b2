/**
 * The gate scored on test/fixtures/diff/corpus.yaml (D107 evidence for the diff: corpus, history, peers): every row of the compatibility table, the equivalences and
 * the misses of issue 21, each a pair of specs with the classification it must get. The gate flags a pair when it
 * finds a breaking change (`--fail-on breaking`); precision and recall of that flag must stay at 95% or above, and the
 * exact classification of every pair is checked against the corpus beside it.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { compareContracts } from './compare.js';
import { fromPointer } from './document.js';
import { CLASSIFICATIONS, type Change } from './types.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

type Operation = { set: string; value: unknown } | { delete: string } | { push: string; value: unknown };
interface Case {
  name: string;
  expected: (typeof CLASSIFICATIONS)[number] | 'none';
  kind?: string;
  pointer?: string;
  before?: Operation[];
  after?: Operation[];
}

const corpus = YAML.parse(readFileSync(path.join(ROOT, 'test/fixtures/diff/corpus.yaml'), 'utf8')) as {
  base: Record<string, unknown>;
  cases: Case[];
};

function apply(operations: readonly Operation[] = []): Record<string, unknown> {
  const doc = structuredClone(corpus.base);
  for (const op of operations) {
    const pointer = 'set' in op ? op.set : 'delete' in op ? op.delete : op.push;
    const segments = fromPointer(pointer);
    const last = segments.pop()!;
    // biome-ignore lint/suspicious/noExplicitAny: walks a JSON document along a pointer of any depth
    let parent: any = doc;
    for (const s of segments) parent = parent[s] ??= {};
    if ('set' in op) parent[last] = structuredClone(op.value);
    else if ('delete' in op) delete parent[last];
    else parent[last].push(structuredClone(op.value));
  }
  return doc;
}

const snapshot = (label: string, openapi: Record<string, unknown>) => ({ label, openapi, events: undefined, asyncapi: undefined });
const worst = (changes: readonly Change[]) => CLASSIFICATIONS.find((c) => changes.some((x) => x.classification === c)) ?? 'none';

const results = corpus.cases.map((c) => {
  const changes = compareContracts(snapshot('before', apply(c.before)), snapshot('after', apply(c.after)));
  return { case: c, changes, got: worst(changes) };
});

describe('the breaking-change gate on the corpus', () => {
  it('has at least 60 pairs, breaking and not', () => {
    expect(corpus.cases.length).toBeGreaterThanOrEqual(60);
    expect(corpus.cases.filter((c) => c.expected === 'breaking').length).toBeGreaterThanOrEqual(25);
    expect(new Set(corpus.cases.map((c) => c.name)).size).toBe(corpus.cases.length);
  });

  it('scores at least 95% precision and 95% recall on breaking changes', () => {
    let tp = 0;
    let fp = 0;
    let fn = 0;
    const wrong: string[] = [];
    for (const r of results) {
      const flagged = r.got === 'breaking';
      const positive = r.case.expected === 'breaking';
      if (flagged && positive) tp++;
      else if (flagged) fp++;
      else if (positive) fn++;
      if (flagged !== positive) wrong.push(`${r.case.name}: expected ${r.case.expected}, got ${r.got}`);
    }
    const precision = tp / (tp + fp);
    const recall = tp / (tp + fn);
    console.log(`corpus: ${results.length} pairs, precision ${(precision * 100).toFixed(1)}%, recall ${(recall * 100).toFixed(1)}%`);
    expect(precision, wrong.join('\n')).toBeGreaterThanOrEqual(0.95);
    expect(recall, wrong.join('\n')).toBeGreaterThanOrEqual(0.95);
  });

  it.each(results.map((r) => ({ ...r, name: r.case.name, expected: r.case.expected })))('$name: $expected', ({ case: c, changes, got }) => {
    const seen = JSON.stringify(changes.map((x) => [x.classification, x.kind, x.pointer]));
    expect(got, seen).toBe(c.expected);
    if (c.kind !== undefined) {
      const entry = changes.find((x) => x.kind === c.kind && (c.pointer === undefined || x.pointer === c.pointer));
      expect(entry, seen).toBeDefined();
      expect(entry!.classification, seen).toBe(c.expected);
    }
  });
});
