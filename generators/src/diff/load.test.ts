import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { asyncApiBeside, parseGitSpec } from './load.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

describe('parseGitSpec', () => {
  it.each([
    { spec: 'origin/main:openapi/openapi.yaml', expected: { ref: 'origin/main', file: 'openapi/openapi.yaml' } },
    { spec: 'HEAD~1:./openapi.yaml', expected: { ref: 'HEAD~1', file: './openapi.yaml' } },
    { spec: 'v1.0.0:openapi/openapi.yaml', expected: { ref: 'v1.0.0', file: 'openapi/openapi.yaml' } },
    { spec: 'openapi/openapi.yaml', expected: undefined },
    { spec: 'C:/specs/openapi.yaml', expected: undefined },
    { spec: 'openapi/released/1.0.0.json', expected: undefined },
  ])('$spec', ({ spec, expected }) => {
    expect(parseGitSpec(spec, ROOT)).toEqual(expected);
  });
});

describe('asyncApiBeside', () => {
  it.each([
    { openapi: 'openapi/openapi.yaml', expected: 'openapi/asyncapi.yaml' },
    { openapi: 'openapi/released/1.0.0.json', expected: 'openapi/released/1.0.0.asyncapi.json' },
    { openapi: 'test/fixtures/none/openapi.yaml', expected: undefined },
  ])('$openapi -> $expected', ({ openapi, expected }) => {
    expect(asyncApiBeside(path.join(ROOT, openapi))).toBe(expected === undefined ? undefined : path.join(ROOT, expected));
  });
});
