import { describe, expect, it } from 'vitest';
import { StatementNames } from './statement-names.js';

describe('StatementNames', () => {
  it.each([
    ['the same text', 'SELECT 1 WHERE $1', 'SELECT 1 WHERE $1', true],
    ['another text', 'SELECT 1 WHERE $1', 'SELECT 2 WHERE $1', false],
  ])('gives %s %s name', (_case, first, second, same) => {
    const names = new StatementNames();
    const a = names.nameFor(first);
    const b = names.nameFor(second);
    expect(a).toMatch(/^paygate_\d+$/);
    expect(a === b).toBe(same);
  });

  it('runs texts beyond the bound unnamed, and keeps the names it gave', () => {
    const names = new StatementNames(2);
    const first = names.nameFor('q1');
    names.nameFor('q2');
    expect(names.nameFor('q3')).toBeUndefined();
    expect(names.nameFor('q1')).toBe(first);
    expect(names.size).toBe(2);
  });

  it('gives a forgotten text a new name, never one handed out before', () => {
    const names = new StatementNames();
    const first = names.nameFor('q1');
    const second = names.nameFor('q2');
    names.forget('q1');
    const renamed = names.nameFor('q1');
    expect(renamed).not.toBe(first);
    expect(renamed).not.toBe(second);
  });
});
