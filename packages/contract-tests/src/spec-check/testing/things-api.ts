/** A tiny API for the checks' unit tests: its document, a recording fetch, and a run over both. */
import { positiveSpec } from '../request/positive-request.js';
import type { RequestSpec } from '../request/request-spec.js';
import { createRunState, stateOf, type OpState, type RunState } from '../run/state.js';
import type { CheckApiOptions } from '../types.js';

/**
 * Things: `GET /things` and `POST /things` (an `Idempotency-Key`) need two API keys at once (an AND of schemes);
 * `GET /public` needs none.
 */
export const THINGS = {
  openapi: '3.1.0',
  info: { title: 'Things', version: '1' },
  components: {
    securitySchemes: {
      key: { type: 'apiKey', in: 'header', name: 'X-Key' },
      secret: { type: 'apiKey', in: 'header', name: 'X-Secret' },
    },
  },
  security: [{ key: [], secret: [] }],
  paths: {
    '/things': {
      get: {
        operationId: 'listThings',
        responses: {
          '200': { description: 'ok', content: { 'application/json': { schema: { type: 'array', items: { type: 'string' } } } } },
          '401': { description: 'no credentials' },
        },
      },
      put: { operationId: 'replaceThings', responses: { '204': { description: 'replaced' } } },
      post: {
        operationId: 'createThing',
        parameters: [{ name: 'Idempotency-Key', in: 'header', schema: { type: 'string', maxLength: 64 } }],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: { type: 'object', required: ['name'], properties: { name: { type: 'string', maxLength: 40 } } },
              example: { name: 'lamp' },
            },
          },
        },
        responses: {
          '201': {
            description: 'made',
            content: {
              'application/json': {
                schema: { type: 'object', required: ['id', 'name'], properties: { id: { type: 'string' }, name: { type: 'string' } } },
              },
            },
          },
          '422': { description: 'the key was used for another request' },
        },
      },
    },
    '/public': {
      get: { operationId: 'getPublic', security: [], responses: { '200': { description: 'ok' } } },
    },
  },
};

export interface Call {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string | undefined;
}

/** A fetch that records each request and answers what `answer` says. */
export function recordingFetch(answer: (call: Call) => Response): { fetch: typeof fetch; calls: Call[] } {
  const calls: Call[] = [];
  const fake = async (url: string | URL | Request, init?: RequestInit) => {
    const call = {
      method: init?.method ?? 'GET',
      url: String(url),
      headers: { ...(init?.headers as Record<string, string>) },
      body: typeof init?.body === 'string' ? init.body : undefined,
    };
    calls.push(call);
    return answer(call);
  };
  return { fetch: fake as typeof fetch, calls };
}

/** A run against the fake API and the positive request of one of its operations (with the run's first credential set). */
export function runFor(
  operationId: string,
  fetcher: typeof globalThis.fetch,
  options: Partial<CheckApiOptions> = {},
): { run: RunState; state: OpState; spec: RequestSpec } {
  const run = createRunState({
    document: THINGS,
    baseUrl: 'http://api.example',
    auth: { key: 'right-key', secret: 'right-secret' },
    fetch: fetcher,
    ...options,
  });
  const op = run.operations.find((o) => o.operationId === operationId)!;
  const state = stateOf(run, op);
  const spec = positiveSpec(run, state, run.sets[0], {}, true);
  if ('waiting' in spec) throw new Error(`${operationId} waits for ${spec.waiting}`);
  return { run, state, spec };
}
