import { describe, expect, it } from 'vitest';
import { UnsupportedSpecError } from '../parse/refusal.js';
import { dedupeOperationIds, refuseDuplicateOperationIds } from './operation-ids.js';
import type { OperationModel } from './types.js';

const op = (operationId: string, synthesizedId: boolean, path = '/a'): OperationModel =>
  ({ operationId, synthesizedId, method: 'get', path }) as OperationModel;

describe('operationIds', () => {
  it('suffixes synthesised ids that collide, leaving explicit ones alone', () => {
    const ops = [op('getA', false), op('getA', true), op('getA', true)];
    dedupeOperationIds(ops);
    expect(ops.map((o) => o.operationId)).toEqual(['getA', 'getA2', 'getA3']);
  });

  it('refuses an explicit id used twice, naming the second and the fix', () => {
    expect(() => refuseDuplicateOperationIds([op('list', false, '/a'), op('list', false, '/b')], 'api.yaml')).toThrow(UnsupportedSpecError);
    expect(() => refuseDuplicateOperationIds([op('list', false, '/a'), op('list', true, '/b')], 'api.yaml')).not.toThrow();
  });
});
