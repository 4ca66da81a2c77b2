import { describe, expect, it } from 'vitest';
import { createTemplateEngine, normalizeOutput } from './templates.js';
import { join, json, jsdoc } from './helpers.js';

describe('template helpers', () => {
  it('json: compact by default, pretty with an indent', () => {
    expect(json({ a: [1, 'x'] })).toBe('{"a":[1,"x"]}');
    expect(json({ a: 1 }, 2)).toBe('{\n  "a": 1\n}');
    expect(json('a"b')).toBe('"a\\"b"');
    expect(json(undefined)).toBe('undefined');
  });

  it('jsdoc: one-line, multi-line, empty, and escapes the comment terminator', () => {
    expect(jsdoc('Create an order', 2)).toBe('/** Create an order */\n  ');
    expect(jsdoc(['Summary', '', 'Line 1\nLine 2  '], 4)).toBe('/**\n     * Summary\n     *\n     * Line 1\n     * Line 2\n     */\n    ');
    expect(jsdoc(['', '  '], 2)).toBe('');
    expect(jsdoc('a */ b')).toBe('/** a *\\/ b */\n');
  });

  it('join: joins arrays, empty for anything else', () => {
    expect(join(['a', 'b'], ' | ')).toBe('a | b');
    expect(join(['a', 'b'], undefined)).toBe('a, b');
    expect(join('nope', ',')).toBe('');
  });

  it('normalizeOutput: LF, no trailing spaces, at most one blank line, one final newline', () => {
    expect(normalizeOutput('a  \r\nb\n\n\n\nc\n\n')).toBe('a\nb\n\nc\n');
  });

  it('templates run in strict mode: a missing view-model field throws', () => {
    const engine = createTemplateEngine();
    expect(() => engine.render('client/index', { header: '// h' })).toThrow(/factory/);
  });
});
