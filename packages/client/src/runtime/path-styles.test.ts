import { describe, expect, it } from 'vitest';
import { markedTemplate } from './path-styles.js';

describe('markedTemplate (D413): styled path parameters marked for openapi-fetch', () => {
  it.each<[string, Parameters<typeof markedTemplate>[1], string]>([
    ['/c/{color}', { color: { style: 'label' } }, '/c/{.color}'],
    ['/c/{color}', { color: { style: 'matrix', explode: true } }, '/c/{;color*}'],
    ['/c/{color}', { color: { explode: true } }, '/c/{color*}'],
    ['/c/{color}/{id}', { color: { style: 'label', explode: true } }, '/c/{.color*}/{id}'],
    ['/c/{id}', {}, '/c/{id}'],
  ])('%s with %j is %s', (path, styles, expected) => {
    expect(markedTemplate(path, styles)).toBe(expected);
  });
});
