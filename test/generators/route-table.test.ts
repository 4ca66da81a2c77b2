/**
 * The route table of contract/operations.gen.ts is one JSON text per operation, parsed at import (D194 route table as one JSON text per line): what it
 * parses to is exactly the model's routes, and `OperationId` is exactly the spec's operation ids (type-level part:
 * `npx tsc -p tsconfig.json` checks it).
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { routeViews, singleQuoted } from '../../generators/src/emit/contract.js';
import type { OperationId as MiniOperationId } from '../fixtures/mini/generated/contract/operations.gen.js';
import { generateScenario, ROOT, scenarios } from './fixtures.js';

describe.each(scenarios)('route table: $name', (scenario) => {
  it('parses to the routes of the model, in its order', async () => {
    const { model } = await generateScenario(scenario);
    const file = path.join(ROOT, `test/fixtures/${scenario.name}/generated/contract/operations.gen.ts`);
    const { operations } = (await import(pathToFileURL(file).href)) as { operations: unknown[] };
    expect(operations).toEqual(routeViews(model.operations));
  });

  it('writes every operation id into the OperationId union, once, and nothing else', async () => {
    const { files, model } = await generateScenario(scenario);
    const text = files.find((f) => f.path.endsWith('contract/operations.gen.ts'))!.contents;
    const union = /export type OperationId =((?:\n {2}\| "[^"\n]*")+|\s*never);/.exec(text);
    expect(union, 'OperationId union').not.toBeNull();
    const ids = [...union![1]!.matchAll(/"([^"\n]*)"/g)].map((m) => m[1]);
    expect(ids).toEqual(model.operations.map((op) => op.operationId));
  });
});

describe('route table', () => {
  it.each([
    ['plain JSON', '{"path":"/a/{b}"}'],
    ['a quote', `{"tag":"it's"}`],
    ['backslashes and escaped quotes', '{"pattern":"^\\\\d+\\"$"}'],
    ['line and paragraph separators', '{"x":"a\u2028b\u2029c"}'],
    ['non-ASCII', '{"summary":"caf\u00e9 \u2014 \ud83d\ude00"}'],
  ])('a JSON text survives as a single-quoted literal: %s', (_name, json) => {
    const literal = singleQuoted(json);
    expect(literal).not.toMatch(/[\n\r\u2028\u2029]/);
    expect(new Function(`return ${literal};`)()).toBe(json);
  });

  it('types OperationId as the union of the spec ids', () => {
    expectTypeOf<MiniOperationId>().toEqualTypeOf<
      'getHealth' | 'listMerchants' | 'createOrder' | 'getOrder' | 'uploadOrderDocument' | 'listRefunds'
    >();
    // @ts-expect-error not an operation of the mini spec
    const unknownId: MiniOperationId = 'deleteOrder';
    expect(unknownId).toBe('deleteOrder');
  });
});
