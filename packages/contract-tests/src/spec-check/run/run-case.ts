/**
 * One case of a check: the request encoded and sent, its answer checked against the spec (conformance.ts) and counted
 * (status coverage, seen properties), the ids a 2xx carries pooled for later operations (D271 contract checker's value pool), and what the check
 * itself requires of the answer; recorded on the run and on the operation.
 */
import type { CheckFailure } from '../conformance.js';
import { encode } from '../request/encode.js';
import type { RequestSpec, Sent } from '../request/request-spec.js';
import { send } from '../request/send.js';
import type { CheckCase } from '../types.js';
import { FirstFailure, type OpState, type RunState } from './state.js';

/** What a check requires of an answer: a problem (its failure message) or undefined. */
export type Expectation = (status: number, sent: Sent) => string | undefined;

export interface CaseOptions {
  /** Check the answer against the spec (default true; off for an undeclared method, which has no declared answer). */
  conformance?: boolean;
  /** The failure's check name when `expect` finds a problem (default `<check>_data`). */
  failureCheck?: string;
}

/** The checks whose 2xx answers feed the pool (the others send variants a deployment should refuse). */
const HARVESTING = new Set<CheckCase['check']>(['positive', 'stateful', 'boundaries', 'idempotency']);

export const is4xx = (s: number): boolean => s >= 400 && s < 500;
export const expect4xx =
  (what: string): Expectation =>
  (status) =>
    is4xx(status) ? undefined : `${what} was answered ${status}, not a 4xx`;

/** Sends one request of a check and records it. Returns the answer (undefined when none came). */
export async function runCase(
  run: RunState,
  state: OpState,
  check: CheckCase['check'],
  spec: RequestSpec,
  expect: Expectation,
  options: CaseOptions = {},
): Promise<Sent | undefined> {
  const started = performance.now();
  const { url, init, label } = await encode(run, spec);
  const outcome = await send(run, url, init);
  const failures: CheckFailure[] = [];
  let status: number | undefined;
  let sent: Sent | undefined;
  const op = spec.op;
  if ('error' in outcome) {
    failures.push({
      check: 'request',
      operationId: op.operationId,
      status: undefined,
      pointer: op.at,
      message: outcome.error,
      request: label,
    });
  } else {
    sent = outcome;
    status = outcome.response.status;
    if (options.conformance !== false) failures.push(...conformanceOf(run, check, spec, label, outcome));
    const problem = expect(status, outcome);
    if (problem !== undefined)
      failures.push({
        check: options.failureCheck ?? `${check}_data`,
        operationId: op.operationId,
        status,
        pointer: op.at,
        message: `${problem}; body: ${outcome.text.slice(0, 200)}`,
        request: label,
      });
  }
  const entry: CheckCase = {
    operationId: op.operationId,
    check,
    request: label,
    status,
    failures,
    durationMs: Math.round(performance.now() - started),
  };
  run.cases.push(entry);
  state.cases.push(entry);
  if (run.failFast && failures.length > 0) throw new FirstFailure();
  return sent;
}

/** The answer against the spec: its failures; the status and properties counted, a 2xx's ids pooled. */
function conformanceOf(run: RunState, check: CheckCase['check'], spec: RequestSpec, label: string, sent: Sent): CheckFailure[] {
  const op = spec.op;
  const status = sent.response.status;
  const c = run.validators.check(op, label, sent.response, sent.text);
  if (c.key !== undefined) {
    const seen = run.coverage.get(op.operationId);
    if (seen) seen.set(c.key, (seen.get(c.key) ?? 0) + 1);
  }
  if (c.json !== undefined && c.schemaAt !== undefined && c.failures.length === 0)
    run.properties.record(op.operationId, c.key!, c.mediaType ?? '', c.schemaAt, c.json);
  if (status < 300 && HARVESTING.has(check)) {
    const request = {
      path: spec.path,
      query: Object.fromEntries(spec.params.filter(([p]) => p.in === 'query').map(([p, v]) => [p.name, String(v)])),
      headers: Object.fromEntries(spec.params.filter(([p]) => p.in === 'header').map(([p, v]) => [p.name, String(v)])),
      body: spec.body,
    };
    run.pool.harvest(op, status, c.json, sent.response.headers, spec.set?.name ?? '', request);
    for (const use of spec.uses.values()) if (use.pooled) run.pool.proven(use.key, use.value);
  }
  return c.failures;
}
