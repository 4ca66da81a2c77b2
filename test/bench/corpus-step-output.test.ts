/** What the corpus runner keeps of a failing step's output (bench/corpus/step-output.ts): its head and its tail. */
import { describe, expect, it } from 'vitest';
import { HEAD_CHARS, headAndTail, outline, TAIL_CHARS } from '../../bench/corpus/step-output.js';

describe('headAndTail', () => {
  it('keeps a short output whole', () => {
    const text = 'x'.repeat(HEAD_CHARS + TAIL_CHARS);
    expect(headAndTail(text)).toBe(text);
  });

  it('keeps the first 4,000 and the last 16,000 characters of a long one, saying how many were cut', () => {
    // graph-beta's `paygate docs`: progress first, the error at the very end
    const text = `Building the docs site\n${'p'.repeat(30_000)}\nError: the cause\n`;
    const kept = headAndTail(text);
    expect(kept.startsWith(`Building the docs site\n${'p'.repeat(HEAD_CHARS - 23)}\n[… `)).toBe(true);
    expect(kept.endsWith('\nError: the cause\n')).toBe(true);
    const cut = text.length - HEAD_CHARS - TAIL_CHARS;
    expect(kept).toContain(`\n[… ${cut} characters left out …]\n`);
    expect(kept.length).toBe(HEAD_CHARS + TAIL_CHARS + `\n[… ${cut} characters left out …]\n`.length);
  });

  it('takes other bounds', () => {
    expect(headAndTail('abcdefghij', 2, 3)).toBe('ab\n[… 5 characters left out …]\nhij');
  });
});

describe('outline', () => {
  it('keeps every line of a short output, without the `wrote` lines and blank ones', () => {
    expect(outline('Reading openapi.json\n\n  wrote site/index.html\n3 file(s) written\nError: boom\n')).toBe(
      'Reading openapi.json\nError: boom',
    );
  });

  it('keeps the first and the last lines of a long one: the error a step ends with survives', () => {
    const lines = [...Array.from({ length: 30 }, (_, i) => `  emit step ${i}`), 'RangeError: Invalid string length'];
    const kept = outline(lines.join('\n')).split('\n');
    expect(kept).toHaveLength(8 + 1 + 12);
    expect(kept.slice(0, 8)).toEqual(lines.slice(0, 8));
    expect(kept[8]).toBe('[… 11 line(s) left out …]');
    expect(kept.at(-1)).toBe('RangeError: Invalid string length');
  });
});
