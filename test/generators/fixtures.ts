import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generate, type GenerateResult } from '../../generators/src/pipeline.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface Scenario {
  name: string;
  openapi: string;
  asyncapi: string | null;
}

/** Fixture specs; each generates into test/fixtures/<name>/generated/{contract,server,client,webhooks} (golden + type-checked). */
export const scenarios: Scenario[] = [
  { name: 'mini', openapi: 'test/fixtures/mini/openapi.yaml', asyncapi: 'test/fixtures/mini/asyncapi.yaml' },
  { name: 'edge', openapi: 'test/fixtures/edge/openapi.yaml', asyncapi: null },
  { name: 'params', openapi: 'test/fixtures/params/openapi.yaml', asyncapi: null },
  // Constructs of real-world specs: recursion, discriminators, nullable / type arrays, overrides, media types, odd names, legacy patterns.
  { name: 'shapes', openapi: 'test/fixtures/shapes/openapi.yaml', asyncapi: null },
  { name: 'shapes31', openapi: 'test/fixtures/shapes31/openapi.yaml', asyncapi: null },
  // Not Paygate's conventions: bearer auth, its own Error {code, message}, expand[] deepObject arrays, a + in its server URL.
  { name: 'shelf', openapi: 'test/fixtures/shelf/openapi.yaml', asyncapi: null },
  // Events (D210 webhooks and callbacks are events; D211 event discriminator declared or detected): webhooks and callbacks discriminated on `event` (3.1), callbacks known by name only (3.0).
  { name: 'events31', openapi: 'test/fixtures/events31/openapi.yaml', asyncapi: null },
  { name: 'callbacks30', openapi: 'test/fixtures/callbacks30/openapi.yaml', asyncapi: null },
  // Issue 30's minimal reproductions, vendor-style: `4xx` ranges, a repeated path parameter, `enum: []`, a code enum
  // without a catalogue, a title starting with "The" (3.0: a CDN's style; 3.1: a chat platform's, with tuples and `nullable`).
  { name: 'vendor30', openapi: 'test/fixtures/vendor30/openapi.yaml', asyncapi: null },
  { name: 'vendor31', openapi: 'test/fixtures/vendor31/openapi.yaml', asyncapi: null },
  // D410: every path template spelling real specs use (Google verbs, AWS fragments, shared segments, query strings).
  { name: 'routes30', openapi: 'test/fixtures/routes30/openapi.yaml', asyncapi: null },
];

const cache = new Map<string, Promise<GenerateResult>>();

export function generateScenario(scenario: Scenario): Promise<GenerateResult> {
  let pending = cache.get(scenario.name);
  if (pending === undefined) {
    const base = `test/fixtures/${scenario.name}/generated`;
    pending = generate({
      rootDir: ROOT,
      openapi: scenario.openapi,
      asyncapi: scenario.asyncapi,
      lint: 'report',
      out: { contract: `${base}/contract`, server: `${base}/server`, client: `${base}/client`, webhooks: `${base}/webhooks` },
      targets: ['contract', 'server', 'client', 'webhooks'],
    });
    cache.set(scenario.name, pending);
  }
  return pending;
}
