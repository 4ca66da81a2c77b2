/**
 * Issue 35: every hand-written file over 400 lines and function over 80 lines is split or listed with why
 * (docs/code-size.json), and docs/architecture.md's table of them is what `npm run code-size -- --write` writes.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { architectureWithTable, longThings, readReasons } from '../../scripts/code-size.js';

describe('long files and functions', () => {
  const things = longThings();
  const reasons = readReasons();

  it('each has its why in docs/code-size.json (split it, or add "<key>": "<why>")', () => {
    expect(things.filter((t) => !reasons[t.key]?.trim()).map((t) => `${t.key} (${t.lines} lines)`)).toEqual([]);
  });

  it('no why is kept for a file or function that is no longer long (delete its entry)', () => {
    const keys = new Set(things.map((t) => t.key));
    expect(Object.keys(reasons).filter((k) => !keys.has(k))).toEqual([]);
  });

  it("docs/architecture.md's table is current (npm run code-size -- --write)", () => {
    const current = readFileSync(new URL('../../docs/architecture.md', import.meta.url), 'utf8');
    expect(architectureWithTable(current, things, reasons)).toBe(current);
  });
});
