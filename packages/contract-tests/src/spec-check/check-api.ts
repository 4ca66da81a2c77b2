/**
 * `checkApi`: spec-driven contract checks of any deployment against any OpenAPI 3.0/3.1 document (D125, D270-D279),
 * with nothing but credentials. A stateful run:
 *  1. plan: operations in dependency order (what an operation needs, something earlier makes: D271), creates first,
 *     then reads, then updates and actions, deletes last;
 *  2. positive: each operation with the values earlier answers carried (pool.ts), the spec's examples and samples for
 *     the rest; a documented 4xx teaches it (a field the error names: an optional input added, a value made unique, a
 *     pooled value swapped; 401/403: another credential set), and an operation that still cannot succeed waits for the
 *     next round, then gets fresh resources (its producer run again with its next example) (D272);
 *  3. per operation, once it succeeded: negative data per field and constraint, no or partial or wrong credentials,
 *     boundary values, an idempotent replay (same key: same answer, no second effect; same key and another body: a
 *     4xx), another tenant reading what it made, a child amount above its parent's, an undeclared method (D276);
 *  4. deletes, then use-after-free reads of what was deleted, then clean-up of what the run made (D273).
 * Every response is checked (conformance.ts). URLs and e-mail addresses sent point at reserved hosts (safety.ts).
 * Nothing here knows Paygate.
 */
import { randomUUID } from 'node:crypto';
import { applyAuth, type AuthTarget, type SecuritySchemes } from '@paygate/client/runtime/security.js';
import { encodeBody, isFileSchema, preferredMedia, type EncodedBody } from './bodies.js';
import { isJsonMedia, mentionedNames, SpecValidators, type CheckFailure } from './conformance.js';
import { covers, included, setsFor, type CredentialSet } from './credentials.js';
import {
  isObj,
  makeResolver,
  readOperations,
  securitySchemes,
  token,
  upgradeNullable,
  type MediaSpec,
  type OperationInfo,
  type ParamSpec,
} from './document.js';
import { bodyNegatives, scalarNegatives } from './negatives.js';
import { inputKey, ValuePool, type Scalar } from './pool.js';
import { PropertyCoverage } from './property-coverage.js';
import { safeValue } from './safety.js';
import { sampleOf, type Json, type JsonObject } from './samples.js';

import { ALL_CHECKS, type ApiCheckReport, type CheckApiOptions, type CheckCase, type OperationOutcome } from './types.js';
import { planOrder, staticProducers } from './operation-order.js';

class DeadlineReached extends Error {}
class FirstFailure extends Error {}

interface Learnt {
  /** Optional inputs to send: `query:name`, `header:name`, `cookie:name`, `body:a.b`. */
  inputs: Set<string>;
  /** Inputs to make unique per request. */
  unique: Set<string>;
}

interface OpState {
  op: OperationInfo;
  outcome: OperationOutcome | undefined;
  rounds: number;
  learnt: Learnt;
  exampleIndex: number;
  /** Values that failed this operation, per input key. */
  avoid: Map<string, Set<Scalar>>;
  success: RequestSpec | undefined;
  successSent: Sent | undefined;
  lastResponse: { status: number; text: string } | undefined;
  note: string | undefined;
  cases: CheckCase[];
  startedAt: number | undefined;
}

interface Use {
  key: string;
  value: Scalar;
  pooled: boolean;
}

interface RequestSpec {
  op: OperationInfo;
  set: CredentialSet | undefined;
  authMode: 'normal' | 'none' | 'garbage' | { omit: string };
  path: Record<string, string>;
  params: [ParamSpec, Json][];
  media: MediaSpec | undefined;
  body: Json | undefined;
  /** input id (`path:order_id`, `body:payment_id`) -> what was used. */
  uses: Map<string, Use>;
  note: string | undefined;
  method?: string;
}

interface Sent {
  response: Response;
  text: string;
}

const IDEMPOTENCY = /^idempotency[-_]?key$/i;

function serializeParam(p: ParamSpec, value: Json): [string, string][] {
  if (Array.isArray(value)) {
    if (p.style === 'deepObject') return value.map((v) => [`${p.name}[]`, String(v)]);
    if (p.explode === false || p.in !== 'query') return [[p.name, value.map(String).join(',')]];
    return value.map((v) => [p.name, String(v)]);
  }
  if (isObj(value)) {
    if (p.style === 'deepObject') return Object.entries(value).map(([k, v]) => [`${p.name}[${k}]`, String(v)]);
    if (p.explode === false) return [[p.name, Object.entries(value).flat().map(String).join(',')]];
    return Object.entries(value).map(([k, v]) => [k, String(v)]);
  }
  return [[p.name, String(value)]];
}

const paramId = (p: ParamSpec) => `${p.in}:${p.name.toLowerCase()}`;

async function mapLimit<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await fn(items[next++]!);
  });
  await Promise.all(workers);
}

export async function checkApi(options: CheckApiOptions): Promise<ApiCheckReport> {
  const runStarted = performance.now();
  const doc = upgradeNullable(options.document as Json) as JsonObject;
  const r = makeResolver(doc);
  const allOperations = readOperations(doc, r);
  const operations = allOperations.filter((op) => included(op, options.include ?? [], options.exclude ?? []));
  const schemes: SecuritySchemes = securitySchemes(doc, r);
  const sets: CredentialSet[] = [...(options.credentials ?? [])];
  if (options.auth !== undefined && Object.keys(options.auth).length > 0) sets.unshift({ name: 'default', auth: options.auth });
  const rules = options.rules ?? [];
  const tenants = new Set(options.tenants ?? []);
  const checks = new Set(options.checks ?? ALL_CHECKS);
  const doFetch = options.fetch ?? globalThis.fetch;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const maxWait = options.maxRateLimitWaitMs ?? 30_000;
  const timeoutMs = options.timeoutMs ?? 15_000;
  const deadline = options.maxTimeMs === undefined ? Number.POSITIVE_INFINITY : Date.now() + options.maxTimeMs;
  const maxNegatives = options.maxNegatives ?? 60;
  const concurrency = Math.max(1, options.concurrency ?? 4);
  const settleMs = options.settleMs ?? 5_000;
  const failFast = options.failFast === true;
  const base = options.baseUrl.replace(/\/+$/, '');
  const baseUrl = new URL(base);
  const basePath = baseUrl.pathname.replace(/\/+$/, '');
  const ownHosts = new Set([baseUrl.hostname.toLowerCase()]);
  const validators = new SpecValidators(doc);
  const pool = new ValuePool(allOperations, ValuePool.resourceKeys(allOperations), basePath);
  const properties = new PropertyCoverage();
  const learntSets = new Map<string, string>();
  const runTag = Date.now().toString(36).slice(-5) + Math.random().toString(36).slice(2, 5);
  let counter = 0;
  const fresh = () => `${runTag}${(counter++).toString(36)}`;

  const cases: CheckCase[] = [];
  const coverage = new Map<string, Map<string, number>>();
  for (const op of operations) coverage.set(op.operationId, new Map([...op.responses.keys()].map((k) => [k, 0])));
  const states = new Map<string, OpState>(
    operations.map((op) => [
      op.operationId,
      {
        op,
        outcome: undefined,
        rounds: 0,
        learnt: { inputs: new Set(), unique: new Set() },
        exampleIndex: 0,
        avoid: new Map(),
        success: undefined,
        successSent: undefined,
        lastResponse: undefined,
        note: undefined,
        cases: [],
        startedAt: undefined,
      },
    ]),
  );
  const deleted: { key: string; value: Scalar }[] = [];
  let timedOut = false;
  let stoppedEarly = false;

  // ------------------------------------------------------------------------------------------------ inputs

  /** The pointer of a property's schema inside the schema at `at` (allOf/oneOf/anyOf searched). */
  const childPointer = (at: string, name: string, depth = 0): string | undefined => {
    if (depth > 6) return undefined;
    const f = r.follow(r.at(at), at);
    const n = f.node;
    if (!isObj(n)) return undefined;
    if (isObj(n['properties']) && n['properties'][name] !== undefined) return `${f.at}/properties/${token(name)}`;
    for (const key of ['allOf', 'oneOf', 'anyOf'] as const) {
      const parts = n[key];
      if (Array.isArray(parts))
        for (let i = 0; i < parts.length; i++) {
          const found = childPointer(`${f.at}/${key}/${i}`, name, depth + 1);
          if (found) return found;
        }
    }
    if (n['items'] !== undefined && /^\d+$/.test(name)) return `${f.at}/items`;
    return undefined;
  };

  /** A value for a string input that no earlier request sent (for inputs the API keeps unique). */
  const uniqueValue = (current: Json | undefined, pointer: string | undefined): Json | undefined => {
    const tag = fresh();
    const s = pointer !== undefined ? r.deref(r.at(pointer)) : undefined;
    const candidates: Json[] = [];
    if (typeof current === 'string') {
      const max = isObj(s) && typeof s['maxLength'] === 'number' ? s['maxLength'] : 64;
      candidates.push(`${current}-${tag}`.slice(-max), `${current.slice(0, Math.max(0, max - tag.length))}${tag}`);
      if (/^\d+$/.test(current))
        candidates.push(`${current.slice(0, Math.max(1, current.length - 6))}${String(Date.now() + counter).slice(-6)}`);
    }
    candidates.push(tag, `x${tag}`, tag.toUpperCase());
    if (typeof current === 'number') candidates.push(current + (counter % 97) + 1);
    return candidates.find((c) => validators.accepts(pointer, c));
  };

  const pooledFor = (state: OpState, key: string, pointer: string | undefined, set: CredentialSet | undefined) =>
    pool.candidates(key, (v) => validators.accepts(pointer, v) && !state.avoid.get(key)?.has(v), set?.name);

  /** Fills the resource references of a body from the pool (and what the run learnt must be unique), in place. */
  const fillBody = (
    state: OpState,
    value: Json,
    at: string,
    path: string[],
    set: CredentialSet | undefined,
    uses: Map<string, Use>,
    pins: Record<string, Scalar>,
  ): Json => {
    if (!isObj(value) || path.length > 5) return value;
    const out: JsonObject = { ...value };
    for (const [name, v] of Object.entries(out)) {
      const pointer = childPointer(at, name);
      const field = [...path, name].join('.');
      const key = inputKey(name);
      if (pool.keys.has(key) && (typeof v === 'string' || typeof v === 'number')) {
        const pinned = pins[key];
        const pick = pinned !== undefined ? pinned : pooledFor(state, key, pointer, set)[0]?.value;
        if (pick !== undefined) {
          out[name] = pick;
          uses.set(`body:${field}`, { key, value: pick, pooled: true });
          continue;
        }
      }
      if (state.learnt.unique.has(`body:${field}`)) {
        const u = uniqueValue(v, pointer);
        if (u !== undefined) out[name] = u;
        continue;
      }
      if (isObj(v) && pointer !== undefined) out[name] = fillBody(state, v, pointer, [...path, name], set, uses, pins);
    }
    // optional properties the API asked for
    for (const input of state.learnt.inputs) {
      if (!input.startsWith('body:')) continue;
      const field = input.slice(5).split('.');
      if (field.length !== path.length + 1 || field.slice(0, -1).join('.') !== path.join('.')) continue;
      const name = field[field.length - 1]!;
      if (out[name] !== undefined) continue;
      const pointer = childPointer(at, name);
      const key = inputKey(name);
      const pooled = pool.keys.has(key) ? pooledFor(state, key, pointer, set)[0]?.value : undefined;
      out[name] = pooled ?? sampleOf(pointer !== undefined ? r.at(pointer) : undefined, r.deref);
      if (pooled !== undefined) uses.set(`body:${field.join('.')}`, { key, value: pooled, pooled: true });
    }
    return out;
  };

  /** A value for a parameter: pinned, pooled (a resource reference), its example, else a sample. */
  const paramValue = (
    state: OpState,
    p: ParamSpec,
    set: CredentialSet | undefined,
    uses: Map<string, Use>,
    pins: Record<string, Scalar>,
  ): Json => {
    const key = inputKey(p.name);
    if (IDEMPOTENCY.test(p.name)) {
      const v = uniqueValue(`ck-${randomUUID()}`, p.schemaAt) ?? randomUUID();
      return v;
    }
    if (pool.keys.has(key)) {
      const pick = pins[key] ?? pooledFor(state, key, p.schemaAt, set)[0]?.value;
      if (pick !== undefined) {
        uses.set(paramId(p), { key, value: pick, pooled: true });
        return pick;
      }
    }
    let value: Json = p.example ?? sampleOf(p.schema, r.deref);
    if (state.learnt.unique.has(paramId(p))) value = uniqueValue(value, p.schemaAt) ?? value;
    uses.set(paramId(p), { key, value: typeof value === 'object' ? JSON.stringify(value) : (value as Scalar), pooled: false });
    return value;
  };

  /**
   * A positive request for an operation, or the key it waits for (a path parameter no earlier answer provided, while
   * `final` is false).
   */
  const positiveSpec = (
    state: OpState,
    set: CredentialSet | undefined,
    pins: Record<string, Scalar>,
    final: boolean,
  ): RequestSpec | { waiting: string } => {
    const op = state.op;
    const uses = new Map<string, Use>();
    const path: Record<string, string> = {};
    const params: [ParamSpec, Json][] = [];
    for (const p of op.params) {
      const key = inputKey(p.name);
      if (p.in === 'path') {
        if (!final && pins[key] === undefined && pooledFor(state, key, p.schemaAt, set).length === 0) return { waiting: p.name };
        path[p.name] = String(paramValue(state, p, set, uses, pins));
        continue;
      }
      const wanted = p.required || IDEMPOTENCY.test(p.name) || state.learnt.inputs.has(paramId(p));
      if (!wanted) continue;
      params.push([p, safeValue(paramValue(state, p, set, uses, pins), ownHosts)]);
    }
    let media: MediaSpec | undefined;
    let body: Json | undefined;
    if (op.body !== undefined && (op.body.required || [...state.learnt.inputs].some((i) => i.startsWith('body:')))) {
      media = preferredMedia(op.body.media);
      if (media !== undefined) {
        const examples = media.examples;
        const example = examples.length > 0 ? examples[state.exampleIndex % examples.length] : undefined;
        const start = structuredClone(example ?? sampleOf(media.schema, r.deref)) as Json;
        body = safeValue(fillBody(state, start, media.schemaAt, [], set, uses, pins), ownHosts);
      }
    }
    return { op, set, authMode: 'normal', path, params, media, body, uses, note: undefined };
  };

  // ------------------------------------------------------------------------------------------------ sending

  const encode = async (
    spec: RequestSpec,
  ): Promise<{ url: string; init: RequestInit; label: string; encoded: EncodedBody | undefined }> => {
    const op = spec.op;
    let pathname = op.path;
    for (const [name, value] of Object.entries(spec.path)) pathname = pathname.replace(`{${name}}`, encodeURIComponent(value));
    const query: [string, string][] = [];
    const headers: Record<string, string> = {};
    const cookies: string[] = [];
    for (const [p, value] of spec.params) {
      if (value === null || value === undefined) continue;
      if (p.in === 'query') query.push(...serializeParam(p, value));
      else if (p.in === 'header') headers[p.name] = typeof value === 'object' ? JSON.stringify(value) : String(value);
      else if (p.in === 'cookie') cookies.push(`${p.name}=${String(value)}`);
    }
    let encoded: EncodedBody | undefined;
    if (spec.media !== undefined && spec.body !== undefined) {
      encoded = encodeBody(spec.media, spec.body, r.deref);
      if (encoded.contentType !== undefined) headers['Content-Type'] = encoded.contentType;
    }
    const secured = op.security.length > 0 && !op.security.some((alt) => alt.length === 0);
    if (spec.set !== undefined && spec.authMode !== 'none') {
      const target: AuthTarget = { headers: {}, query: {}, cookies: [] };
      let auth: Record<string, unknown> = { ...spec.set.auth };
      let requirement = op.security;
      if (spec.authMode === 'garbage')
        auth = Object.fromEntries(
          Object.entries(auth).map(([k, v]) => [
            k,
            isObj(v as Json) ? { username: 'contract-check', password: 'wrong-password' } : `invalid-${fresh()}`,
          ]),
        );
      else if (typeof spec.authMode === 'object') {
        const omit = spec.authMode.omit;
        const alternative = op.security.find((alt) => alt.includes(omit) && alt.every((s) => auth[s] !== undefined));
        requirement = alternative ? [alternative.filter((s) => s !== omit)] : [];
        delete auth[omit];
      }
      if (secured || spec.authMode !== 'normal') await applyAuth(schemes, auth, requirement, target);
      Object.assign(headers, target.headers);
      query.push(...Object.entries(target.query));
      cookies.push(...target.cookies);
    }
    if (cookies.length > 0) headers['Cookie'] = cookies.join('; ');
    const qs = query.length > 0 ? `?${new URLSearchParams(query).toString()}` : '';
    const method = (spec.method ?? op.method).toUpperCase();
    const label = `${method} ${pathname}${qs.length > 120 ? `${qs.slice(0, 120)}...` : qs}${spec.note ? ` (${spec.note})` : ''}`;
    return {
      url: `${base}${pathname}${qs}`,
      init: { method, headers, ...(encoded ? { body: encoded.body as BodyInit } : {}) },
      label,
      encoded,
    };
  };

  /** Sends with 429 handling: waits out Retry-After up to `maxWait` in total, then reports. */
  const send = async (url: string, init: RequestInit): Promise<Sent | { error: string }> => {
    let waited = 0;
    for (;;) {
      if (Date.now() > deadline) throw new DeadlineReached();
      let response: Response;
      try {
        response = await doFetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs), redirect: 'manual' });
      } catch (error) {
        const e = error as Error;
        return {
          error:
            e.name === 'TimeoutError' ? `no answer within ${timeoutMs} ms (the per-request time bound)` : `request failed: ${e.message}`,
        };
      }
      const text = await response.text();
      if (response.status !== 429) return { response, text };
      const retryAfter = Number(response.headers.get('retry-after'));
      const wait = Number.isFinite(retryAfter) && retryAfter >= 0 ? retryAfter * 1000 : 1000;
      if (waited + wait > maxWait) {
        return {
          error: `rate limited (429) for more than ${Math.round(maxWait / 1000)} s: raise the deployment's rate limit for this run (a Paygate gateway: PAYGATE_RATE_LIMIT) or lower the request rate`,
        };
      }
      waited += wait;
      await sleep(wait);
    }
  };

  const HARVESTING = new Set<CheckCase['check']>(['positive', 'stateful', 'boundaries', 'idempotency']);

  /**
   * One request: sent, checked, counted; `expect` says what else the check requires of the status. Returns the
   * response (undefined when none came).
   */
  const runCase = async (
    state: OpState,
    check: CheckCase['check'],
    spec: RequestSpec,
    expect: (status: number, sent: Sent) => string | undefined,
    options: { conformance?: boolean; failureCheck?: string } = {},
  ): Promise<Sent | undefined> => {
    const started = performance.now();
    const { url, init, label } = await encode(spec);
    const outcome = await send(url, init);
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
      if (options.conformance !== false) {
        const c = validators.check(op, label, outcome.response, outcome.text);
        failures.push(...c.failures);
        if (c.key !== undefined) {
          const seen = coverage.get(op.operationId);
          if (seen) seen.set(c.key, (seen.get(c.key) ?? 0) + 1);
        }
        if (c.json !== undefined && c.schemaAt !== undefined && c.failures.length === 0)
          properties.record(op.operationId, c.key!, c.mediaType ?? '', c.schemaAt, c.json);
        if (status < 300 && HARVESTING.has(check)) {
          const request = {
            path: spec.path,
            query: Object.fromEntries(spec.params.filter(([p]) => p.in === 'query').map(([p, v]) => [p.name, String(v)])),
            headers: Object.fromEntries(spec.params.filter(([p]) => p.in === 'header').map(([p, v]) => [p.name, String(v)])),
            body: spec.body,
          };
          pool.harvest(op, status, c.json, outcome.response.headers, spec.set?.name ?? '', request);
          for (const use of spec.uses.values()) if (use.pooled) pool.proven(use.key, use.value);
        }
      }
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
    cases.push(entry);
    state.cases.push(entry);
    if (failFast && failures.length > 0) throw new FirstFailure();
    return sent;
  };

  const is4xx = (s: number) => s >= 400 && s < 500;
  const expect4xx = (what: string) => (status: number) => (is4xx(status) ? undefined : `${what} was answered ${status}, not a 4xx`);

  // ------------------------------------------------------------------------------------------------ positive

  /** What a 4xx teaches: an input the error names that the request lacked, or sent with a value to change. */
  const learnFrom = (state: OpState, spec: RequestSpec, text: string): string | undefined => {
    const names = mentionedNames(text);
    const mentions = (name: string) =>
      names.has(name.toLowerCase()) || [...names].some((n) => inputKey(n) === inputKey(name) && inputKey(name).length > 2);
    const op = state.op;
    for (const p of op.params) {
      if (p.in === 'path' || IDEMPOTENCY.test(p.name) || !mentions(p.name)) continue;
      const id = paramId(p);
      if (!spec.params.some(([q]) => q === p) && !state.learnt.inputs.has(id)) {
        state.learnt.inputs.add(id);
        return `the answer asks for ${p.in} ${p.name}`;
      }
    }
    for (const [id, use] of spec.uses) {
      const field = id.slice(id.indexOf(':') + 1);
      const leaf = field.split('.').pop()!;
      if (!mentions(leaf) && !mentions(field)) continue;
      if (use.pooled) {
        const avoid = state.avoid.get(use.key) ?? new Set();
        if (
          !avoid.has(use.value) &&
          pool.candidates(use.key, () => true, undefined).some((c) => c.value !== use.value && !avoid.has(c.value))
        ) {
          avoid.add(use.value);
          state.avoid.set(use.key, avoid);
          return `another ${leaf} than ${use.value}`;
        }
      } else if (!state.learnt.unique.has(id) && !id.startsWith('path:')) {
        state.learnt.unique.add(id);
        return `a value of ${leaf} no earlier request sent`;
      }
    }
    // a body value the error names (a reference the API keeps unique): a fresh one next time
    const leaves: string[] = [];
    const walk = (node: Json | undefined, path: string[]) => {
      if (!isObj(node) || path.length > 4) return;
      for (const [k, v] of Object.entries(node)) {
        if (isObj(v)) walk(v, [...path, k]);
        else if (typeof v === 'string' || typeof v === 'number') leaves.push([...path, k].join('.'));
      }
    };
    walk(spec.body, []);
    for (const field of leaves) {
      const id = `body:${field}`;
      if (spec.uses.get(id)?.pooled || state.learnt.unique.has(id)) continue;
      if (!mentions(field.split('.').pop()!) && !mentions(field)) continue;
      state.learnt.unique.add(id);
      return `a value of ${field} no earlier request sent`;
    }
    // an optional body property the error names
    const media = spec.media;
    if (media !== undefined && isObj(spec.body)) {
      const props = isObj(r.deref(r.at(media.schemaAt))) ? Object.keys(collectProperties(media.schemaAt)) : [];
      for (const name of props) {
        if (spec.body[name] !== undefined || !mentions(name) || state.learnt.inputs.has(`body:${name}`)) continue;
        state.learnt.inputs.add(`body:${name}`);
        return `the answer asks for body ${name}`;
      }
    }
    return undefined;
  };

  const collectProperties = (at: string): Record<string, Json> => {
    const f = r.follow(r.at(at), at);
    const out: Record<string, Json> = {};
    if (!isObj(f.node)) return out;
    for (const key of ['allOf'] as const) {
      const parts = f.node[key];
      if (Array.isArray(parts)) parts.forEach((_, i) => Object.assign(out, collectProperties(`${f.at}/${key}/${i}`)));
    }
    if (isObj(f.node['properties'])) Object.assign(out, f.node['properties']);
    return out;
  };

  /** Runs an operation that made a key again (its next example) so a consumer gets a fresh one. */
  const remake = async (key: string, exclude: Scalar | undefined, depth: number): Promise<Scalar | undefined> => {
    if (depth > 1) return undefined;
    const made = exclude !== undefined ? pool.find(key, exclude)?.from : undefined;
    const producers = [...(made ? [made] : []), ...(staticProducersOf.get(key) ?? []).map((p) => p.operationId)].filter(
      (id, i, all) => all.indexOf(id) === i,
    );
    for (const id of producers) {
      const producer = states.get(id);
      if (producer === undefined || producer.outcome !== 'passed' || producer.success === undefined) continue;
      const examples = producer.success.media?.examples.length ?? 1;
      for (let e = 0; e < Math.max(1, examples); e++) {
        if (examples > 1) producer.exampleIndex = (producer.exampleIndex + 1) % examples;
        // what the producer's own answers teach applies here too (a reference the API keeps unique...)
        for (let lesson = 0; lesson < 4; lesson++) {
          const spec = positiveSpec(producer, producer.success.set, {}, false);
          if ('waiting' in spec) break;
          spec.note = `to make a fresh ${key}`;
          const before = pool.newest(key, () => true)?.seq ?? -1;
          const sent = await runCase(producer, 'stateful', spec, () => undefined);
          if (sent === undefined) break;
          if (sent.response.status < 300) {
            const newest = pool.newest(key, () => true);
            if (newest !== undefined && newest.seq > before && newest.value !== exclude) return newest.value;
            break;
          }
          if (sent.response.status >= 500 || learnFrom(producer, spec, sent.text) === undefined) break;
        }
      }
    }
    return undefined;
  };

  /**
   * Tries an operation's positive request (learning as it goes). `passed`: a 2xx; `failed`: a 5xx or a failure;
   * `waiting`/`deferred`: try again in a later round; on the final try anything else is recorded as it is.
   */
  const attemptPositive = async (state: OpState, final: boolean): Promise<'passed' | 'failed' | 'waiting' | 'deferred' | 'unreached'> => {
    const op = state.op;
    state.startedAt ??= performance.now();
    state.rounds++;
    const candidates = setsFor(op, sets, rules, learntSets);
    const secured = op.security.length > 0 && !op.security.some((alt) => alt.length === 0);
    const tried = new Set<string>();
    let set: CredentialSet | undefined = secured ? candidates[0] : (candidates[0] ?? undefined);
    const pins: Record<string, Scalar> = {};
    let recovered = 0;
    for (let attempt = 0; attempt < 10; attempt++) {
      const spec = positiveSpec(state, set, pins, final);
      if ('waiting' in spec) {
        if (state.rounds >= 2) {
          // nothing made this yet: run what can make it again (a list that was empty, a run that had nothing to do)
          const value = await remake(inputKey(spec.waiting), undefined, 0);
          if (value !== undefined) {
            pins[inputKey(spec.waiting)] = value;
            continue;
          }
        }
        state.note = `waits for a ${spec.waiting} no answer has carried yet`;
        return 'waiting';
      }
      if (attempt > 0 && spec.note === undefined) spec.note = 'retry';
      const sent = await runCase(state, 'positive', spec, () => undefined);
      if (sent === undefined) return 'failed';
      const status = sent.response.status;
      state.lastResponse = { status, text: sent.text };
      if (status < 300) {
        state.success = spec;
        state.successSent = sent;
        if (set) learntSets.set(op.operationId, set.name);
        return 'passed';
      }
      if (status >= 500) return 'failed';
      if ((status === 401 || status === 403) && secured) {
        if (set) tried.add(set.name);
        const next = candidates.find((s) => !tried.has(s.name));
        if (next !== undefined) {
          set = next;
          continue;
        }
      }
      // what the answer teaches is tried with the best set again (a 401 about a used session is no credential's fault)
      const restart = () => {
        tried.clear();
        set = secured ? candidates[0] : (candidates[0] ?? undefined);
      };
      const lesson = learnFrom(state, spec, sent.text);
      if (lesson !== undefined) {
        restart();
        continue;
      }
      if (!final && state.rounds < 2) {
        state.note = `answered ${status}`;
        return 'deferred';
      }
      // fresh resources: the pooled inputs this request used, made again
      if (recovered < 3) {
        const pooled = [...spec.uses.entries()]
          .filter(([, u]) => u.pooled)
          .sort(([a], [b]) => Number(b.startsWith('path:')) - Number(a.startsWith('path:')));
        let remade = false;
        for (const [, use] of pooled) {
          const value = await remake(use.key, use.value, 0);
          if (value !== undefined) {
            pins[use.key] = value;
            remade = true;
            break;
          }
        }
        recovered++;
        if (remade) {
          restart();
          continue;
        }
      }
      state.note = `no 2xx: answered ${status}`;
      return final ? 'unreached' : 'deferred';
    }
    return final ? 'unreached' : 'deferred';
  };

  // ------------------------------------------------------------------------------------------------ follow-up checks

  const withFreshKeys = (spec: RequestSpec): RequestSpec => ({
    ...spec,
    params: spec.params.map(([p, v]): [ParamSpec, Json] => [
      p,
      IDEMPOTENCY.test(p.name) ? (uniqueValue(`ck-${randomUUID()}`, p.schemaAt) ?? randomUUID()) : v,
    ]),
  });

  const negatives = async (state: OpState, spec: RequestSpec): Promise<void> => {
    const op = state.op;
    const list: RequestSpec[] = [];
    // parameters: missing when required, each constraint broken
    for (const p of op.params) {
      if (IDEMPOTENCY.test(p.name)) continue;
      const present = spec.params.find(([q]) => q === p);
      if (p.required && p.in !== 'path' && present)
        list.push({ ...withFreshKeys(spec), params: spec.params.filter(([q]) => q !== p), note: `${p.in} ${p.name} missing` });
      for (const n of scalarNegatives(p.schema, r.deref, true)) {
        if (
          !validators.accepts(p.schemaAt, typeof n.value === 'string' && /^-?\d+(\.\d+)?$/.test(n.value) ? Number(n.value) : n.value) ===
          false
        )
          continue;
        const note = `${p.in} ${p.name}: ${n.reason}`;
        if (p.in === 'path') list.push({ ...withFreshKeys(spec), path: { ...spec.path, [p.name]: String(n.value) }, note });
        else list.push({ ...withFreshKeys(spec), params: [...spec.params.filter(([q]) => q !== p), [p, n.value]], note });
      }
    }
    if (spec.media !== undefined && spec.body !== undefined) {
      const formLike = !isJsonMedia(spec.media.mediaType.toLowerCase().split(';')[0]!.trim());
      const validates = (value: Json) => {
        // a file part is bytes on the wire; the schema sees a string there
        return validators.accepts(spec.media!.schemaAt, value);
      };
      for (const n of bodyNegatives(spec.media.schema, spec.body, r.deref, validates, formLike))
        list.push({ ...withFreshKeys(spec), body: n.value ?? null, note: `${n.field}: ${n.reason}` });
    }
    if (op.body?.required && spec.body !== undefined && spec.media !== undefined)
      list.push({ ...withFreshKeys(spec), media: undefined, body: undefined, note: 'required body missing' });
    const capped = list.slice(0, maxNegatives);
    await mapLimit(capped, concurrency, async (neg) => {
      await runCase(state, 'negative', neg, expect4xx('negative data'), { failureCheck: 'negative_data_rejection' });
    });
  };

  const unauthenticated = async (state: OpState, spec: RequestSpec): Promise<void> => {
    const op = state.op;
    if (op.security.length === 0 || op.security.some((alt) => alt.length === 0) || spec.set === undefined) return;
    const variants: RequestSpec[] = [
      { ...withFreshKeys(spec), authMode: 'none', note: 'no credentials' },
      { ...withFreshKeys(spec), authMode: 'garbage', note: 'wrong credentials' },
    ];
    const alternative = op.security.find((alt) => alt.every((s) => spec.set!.auth[s] !== undefined));
    if (alternative !== undefined && alternative.length > 1)
      for (const omit of alternative) variants.push({ ...withFreshKeys(spec), authMode: { omit }, note: `without ${omit}` });
    await mapLimit(variants, concurrency, async (v) => {
      await runCase(state, 'unauthenticated', v, expect4xx(`a request ${v.note}`), { failureCheck: 'ignored_auth' });
    });
  };

  /** Boundary values of numeric inputs: each minimum and maximum (optional query parameters too). */
  const boundaries = async (state: OpState, spec: RequestSpec): Promise<void> => {
    const variants: RequestSpec[] = [];
    for (const p of state.op.params) {
      if (p.in !== 'query' || IDEMPOTENCY.test(p.name)) continue;
      const s = r.deref(p.schema);
      if (!isObj(s)) continue;
      for (const bound of ['minimum', 'maximum'] as const) {
        const v = s[bound];
        if (typeof v !== 'number' || !validators.accepts(p.schemaAt, v)) continue;
        variants.push({
          ...withFreshKeys(spec),
          params: [...spec.params.filter(([q]) => q !== p), [p, v]],
          note: `${p.name} at its ${bound} ${v}`,
        });
      }
    }
    if (spec.media !== undefined && isObj(spec.body) && state.op.method !== 'delete') {
      const props = collectProperties(spec.media.schemaAt);
      for (const [name, raw] of Object.entries(props)) {
        const s = r.deref(raw);
        if (!isObj(s) || spec.body[name] === undefined || isFileSchema(s)) continue;
        for (const bound of ['minimum', 'maximum'] as const) {
          const v = s[bound];
          if (typeof v !== 'number') continue;
          const body = { ...spec.body, [name]: v };
          if (!validators.accepts(spec.media.schemaAt, body)) continue;
          variants.push({ ...withFreshKeys(spec), body, note: `body.${name} at its ${bound} ${v}` });
        }
      }
    }
    await mapLimit(variants.slice(0, 12), concurrency, async (v) => {
      await runCase(state, 'boundaries', v, () => undefined);
    });
  };

  const stableJson = (text: string): string => {
    try {
      return JSON.stringify(JSON.parse(text));
    } catch {
      return text;
    }
  };

  /** Same key, same request: the same answer and no second effect; same key, another body: a 4xx (IETF draft). */
  const idempotency = async (state: OpState, spec: RequestSpec, first: { status: number; text: string }): Promise<void> => {
    const keyParam = spec.params.find(([p]) => IDEMPOTENCY.test(p.name));
    if (keyParam === undefined) return;
    const replay = await runCase(
      state,
      'idempotency',
      { ...spec, note: `replay with ${keyParam[0].name} ${String(keyParam[1])}` },
      (status, sent) => {
        if (status !== first.status)
          return `a replay with the same ${keyParam[0].name} was answered ${status}, the first ${first.status}: it ran twice`;
        if (stableJson(sent.text) !== stableJson(first.text))
          return `a replay with the same ${keyParam[0].name} got another body than the first: it ran twice (first: ${first.text.slice(0, 200)})`;
        return undefined;
      },
      { failureCheck: 'idempotent_replay' },
    );
    if (replay === undefined || spec.body === undefined || !isObj(spec.body) || spec.media === undefined) return;
    const changed = changedBody(spec);
    if (changed === undefined) return;
    await runCase(
      state,
      'idempotency',
      { ...spec, body: changed, note: `same ${keyParam[0].name}, another body` },
      (status) =>
        status < 300
          ? `the same ${keyParam[0].name} with another body was answered ${status}: a key must not serve two requests`
          : undefined,
      { failureCheck: 'idempotent_replay' },
    );
  };

  /** The accepted body with one optional or string property changed, still valid. */
  const changedBody = (spec: RequestSpec): Json | undefined => {
    const body = spec.body as JsonObject;
    const props = collectProperties(spec.media!.schemaAt);
    for (const [name, value] of Object.entries(body)) {
      // a file part is its bytes on the wire, whatever the JSON view holds
      if (typeof value !== 'string' || isFileSchema(r.deref(props[name]))) continue;
      const candidate = { ...body, [name]: uniqueValue(value, childPointer(spec.media!.schemaAt, name)) ?? value };
      if (candidate[name] !== value && validators.accepts(spec.media!.schemaAt, candidate)) return candidate;
    }
    for (const [name, value] of Object.entries(body)) {
      if (typeof value !== 'number') continue;
      const candidate = { ...body, [name]: value + 1 };
      if (validators.accepts(spec.media!.schemaAt, candidate)) return candidate;
    }
    return undefined;
  };

  /** A tenant reading what another credential set made must be refused (OWASP API1, RESTler's namespace rule). */
  const isolation = async (state: OpState, spec: RequestSpec): Promise<void> => {
    const secured = state.op.security.length > 0 && !state.op.security.some((alt) => alt.length === 0);
    if (tenants.size === 0 || !secured || state.op.method !== 'get' || spec.set === undefined) return;
    const owned = [...spec.uses.entries()].filter(([id]) => id.startsWith('path:')).map(([, u]) => pool.find(u.key, u.value));
    if (owned.length === 0 || owned.some((v) => v === undefined || !v.created)) return;
    const owner = owned[0]!.set;
    for (const tenant of tenants) {
      const set = sets.find((s) => s.name === tenant);
      if (set === undefined || set.name === owner || owned.some((v) => v!.set === tenant) || !covers(set, state.op)) continue;
      await runCase(
        state,
        'isolation',
        { ...spec, set, note: `as ${tenant}: made by ${owner}` },
        (status) =>
          status < 300 ? `${tenant} read what ${owner} made (answered ${status}): tenants must not see each other's resources` : undefined,
        { failureCheck: 'tenant_isolation' },
      );
    }
  };

  /** A child amount above its parent's (a refund above the payment): must be refused. */
  const invariants = async (state: OpState, spec: RequestSpec): Promise<void> => {
    if (state.op.method !== 'post' || spec.media === undefined || !isObj(spec.body)) return;
    const refs = [...spec.uses.entries()].filter(([id, u]) => id.startsWith('body:') && u.pooled);
    const amountField = Object.entries(spec.body).find(
      ([name, v]) => /amount/i.test(name) && (typeof v === 'number' || (typeof v === 'string' && /^\d+(\.\d+)?$/.test(v))),
    );
    if (refs.length === 0 || amountField === undefined) return;
    for (const [, ref] of refs) {
      const reader = operations.find(
        (o) =>
          o.method === 'get' &&
          o.params.filter((p) => p.in === 'path').length === 1 &&
          o.params.some((p) => p.in === 'path' && inputKey(p.name) === ref.key),
      );
      const readerState = reader ? states.get(reader.operationId) : undefined;
      if (reader === undefined || readerState === undefined) continue;
      const pathParam = reader.params.find((p) => p.in === 'path')!;
      const read = await runCase(
        readerState,
        'stateful',
        {
          op: reader,
          set: spec.set,
          authMode: 'normal',
          path: { [pathParam.name]: String(ref.value) },
          params: [],
          media: undefined,
          body: undefined,
          uses: new Map(),
          note: `the ${ref.key} ${state.op.operationId} refers to`,
        },
        () => undefined,
      );
      if (read === undefined || read.response.status >= 300) continue;
      let parent = 0;
      const visit = (node: unknown, depth: number): void => {
        if (depth > 6) return;
        if (Array.isArray(node)) node.forEach((n) => visit(n, depth + 1));
        else if (isObj(node as Json))
          for (const [k, v] of Object.entries(node as JsonObject)) {
            if (/amount/i.test(k) && !/(fee|tax|refund)/i.test(k)) {
              const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d+(\.\d+)?$/.test(v) ? Number(v) : undefined;
              if (n !== undefined) parent = Math.max(parent, n);
            }
            visit(v, depth + 1);
          }
      };
      try {
        visit(JSON.parse(read.text), 0);
      } catch {
        continue;
      }
      if (parent <= 0) continue;
      const [name, current] = amountField;
      const over = parent * 2;
      const value =
        typeof current === 'string'
          ? over.toFixed(current.split('.')[1]?.length ?? 0)
          : Number.isInteger(current)
            ? Math.round(over)
            : over;
      const body = { ...spec.body, [name]: value };
      if (!validators.accepts(spec.media.schemaAt, body)) continue;
      await runCase(
        state,
        'invariants',
        { ...withFreshKeys(spec), body, note: `${name} ${value}, above the ${ref.key} ${ref.value}'s ${parent}` },
        (status) =>
          status < 300
            ? `${name} ${value} above the referenced ${ref.key.replace(/id$/, '')}'s amount ${parent} was accepted (${status})`
            : undefined,
        { failureCheck: 'amount_above_parent' },
      );
      return;
    }
  };

  const methodsChecked = new Set<string>();
  const unsupportedMethod = async (state: OpState, spec: RequestSpec): Promise<void> => {
    const path = state.op.path;
    if (methodsChecked.has(path)) return;
    methodsChecked.add(path);
    const declared = new Set(allOperations.filter((o) => o.path === path).map((o) => o.method));
    const method = ['put', 'patch', 'post', 'delete'].find((m) => !declared.has(m));
    if (method === undefined) return;
    await runCase(
      state,
      'methods',
      { ...spec, method, media: undefined, body: undefined, note: `${method.toUpperCase()} is not declared for ${path}` },
      expect4xx(`an undeclared method`),
      { conformance: false, failureCheck: 'unsupported_method' },
    );
  };

  /** Location: a 2xx that names another of the API's paths is followed with GET (ensure_resource_availability). */
  const followLocation = async (state: OpState, spec: RequestSpec, sent: Sent): Promise<void> => {
    const location = sent.response.headers.get('location');
    if (!location) return;
    const target = new URL(location, `${base}/`);
    if (target.origin !== baseUrl.origin) return;
    const relative = target.pathname.startsWith(basePath) ? target.pathname.slice(basePath.length) : target.pathname;
    const params = pool.paramsOfUrl(relative);
    const next = operations.find(
      (o) =>
        o.method === 'get' &&
        params !== undefined &&
        Object.keys(params).every((k) => o.params.some((p) => p.in === 'path' && p.name === k)) &&
        o.params.filter((p) => p.in === 'path').length === Object.keys(params).length,
    );
    if (next === undefined || params === undefined) return;
    const nextState = states.get(next.operationId)!;
    await runCase(
      nextState,
      'stateful',
      {
        op: next,
        set: spec.set,
        authMode: 'normal',
        path: params,
        params: [],
        media: undefined,
        body: undefined,
        uses: new Map(),
        note: `Location of ${state.op.operationId}`,
      },
      (status) => (is4xx(status) ? `following the Location of ${state.op.operationId} answered ${status}` : undefined),
      { failureCheck: 'ensure_resource_availability' },
    );
  };

  const emitted = new Set<string>();
  const emit = (state: OpState) => {
    emitted.add(state.op.operationId);
    options.onEvent?.({
      type: 'operation',
      operationId: state.op.operationId,
      method: state.op.method.toUpperCase(),
      path: state.op.path,
      outcome: state.outcome ?? 'skipped',
      note: state.outcome === 'passed' ? undefined : state.note,
      credentialSet: state.success?.set?.name,
      cases: state.cases,
      durationMs: Math.round(performance.now() - (state.startedAt ?? performance.now())),
    });
  };

  /** The checks of an operation after its positive request (a success, or the last answer on the final try). */
  const followUps = async (state: OpState): Promise<void> => {
    const spec = state.success;
    if (spec !== undefined) {
      if (checks.has('stateful') && state.successSent) await followLocation(state, spec, state.successSent);
      if (checks.has('idempotency') && state.lastResponse && state.op.method === 'post') await idempotency(state, spec, state.lastResponse);
      if (checks.has('isolation')) await isolation(state, spec);
      if (checks.has('invariants')) await invariants(state, spec);
      if (checks.has('boundaries')) await boundaries(state, spec);
    }
    const basis = spec ?? lastSpec.get(state.op.operationId);
    if (basis !== undefined && checks.has('unauthenticated')) await unauthenticated(state, basis);
    options.onEvent?.({
      type: 'positive',
      operationId: state.op.operationId,
      method: state.op.method.toUpperCase(),
      path: state.op.path,
      status: state.lastResponse?.status,
      credentialSet: state.success?.set?.name,
    });
  };

  /**
   * The stateless checks of every operation, after the stateful run (D276): negative data and undeclared methods on
   * the request that worked. They come last so that a stateful defect shows after a few hundred requests, not after
   * every negative variant of every operation before it.
   */
  const sweep = async (state: OpState): Promise<void> => {
    const basis = state.success ?? lastSpec.get(state.op.operationId);
    if (basis !== undefined) {
      if (checks.has('negative')) await negatives(state, basis);
      if (checks.has('methods')) await unsupportedMethod(state, basis);
    }
    const failed = state.cases.some((c) => c.failures.length > 0);
    state.outcome = failed ? 'failed' : state.outcome;
    emit(state);
  };

  const lastSpec = new Map<string, RequestSpec>();
  const staticProducersOf = staticProducers(allOperations, r);
  const order = planOrder(operations, r);
  const mainOps = order.filter((op) => op.method !== 'delete');
  const deleteOps = order.filter((op) => op.method === 'delete');

  const finishPositive = async (state: OpState, result: Awaited<ReturnType<typeof attemptPositive>>) => {
    if (result === 'passed') state.outcome = 'passed';
    else state.outcome = result === 'failed' ? 'failed' : 'unreached';
    await followUps(state);
  };

  const runPhase = async (ops: readonly OperationInfo[]) => {
    const pending = ops.map((op) => states.get(op.operationId)!);
    let settleLeft = settleMs;
    for (let round = 0; round < 6 && pending.some((s) => s.outcome === undefined); round++) {
      let progress = false;
      for (const state of pending) {
        if (state.outcome !== undefined) continue;
        const result = await attemptPositive(state, false);
        if (result === 'passed' || result === 'failed') {
          progress = true;
          await finishPositive(state, result);
        }
      }
      if (!progress && round >= 1) {
        // what is left may wait for something the API does on its own time (a worker): give it a moment, bounded
        if (settleLeft <= 0) break;
        const wait = Math.min(settleLeft, 500 * 2 ** Math.min(round, 3));
        settleLeft -= wait;
        await sleep(wait);
      }
    }
    for (const state of pending) {
      if (state.outcome !== undefined) continue;
      const result = await attemptPositive(state, true);
      const lastPositive = [...state.cases].reverse().find((c) => c.check === 'positive');
      if (result !== 'passed' && lastPositive && lastPositive.status !== undefined) {
        const status = lastPositive.status;
        // Schemathesis' positive_data_acceptance: 401, 403, 404 (and the state-dependent 409, 410, 422) are the API's to give
        if (status >= 400 && status < 500 && ![401, 403, 404, 409, 410, 422].includes(status)) {
          const failure: CheckFailure = {
            check: 'positive_data_acceptance',
            operationId: state.op.operationId,
            status,
            pointer: state.op.at,
            message: `positive data was refused with ${status} after every credential set and what its answers taught; body: ${state.lastResponse?.text.slice(0, 200) ?? ''}`,
            request: lastPositive.request,
          };
          lastPositive.failures.push(failure);
        }
      }
      const spec = positiveSpec(state, setsFor(state.op, sets, rules, learntSets)[0], {}, true);
      if (!('waiting' in spec)) lastSpec.set(state.op.operationId, spec);
      await finishPositive(state, result);
    }
  };

  try {
    await runPhase(mainOps);
    // read again what was read before the run made anything (a list that was empty then), for property coverage
    if (checks.has('stateful'))
      for (const op of mainOps) {
        const state = states.get(op.operationId)!;
        if (op.method !== 'get' || state.success === undefined || op.params.some((p) => p.in === 'path')) continue;
        await runCase(state, 'stateful', { ...state.success, note: 'read again at the end' }, (status) =>
          status >= 300 ? `read again at the end of the run, it answered ${status} (it answered 2xx before)` : undefined,
        );
      }
    await runPhase(deleteOps);
    // use after free: what a delete removed is gone for every operation that takes it
    for (const state of deleteOps.map((op) => states.get(op.operationId)!)) {
      // the resource a delete removes is the one its path ends with (`/endpoints/{id}`, not `/merchants/{id}/credentials/previous`)
      const last = /\{([^}]+)\}\/?$/.exec(state.op.path)?.[1];
      const use = last === undefined ? undefined : state.success?.uses.get(`path:${last.toLowerCase()}`);
      if (use !== undefined) deleted.push({ key: use.key, value: use.value });
    }
    if (checks.has('stateful'))
      for (const gone of deleted) {
        for (const op of operations) {
          if (op.method !== 'get') continue;
          const pathParams = op.params.filter((p) => p.in === 'path');
          if (pathParams.length !== 1 || inputKey(pathParams[0]!.name) !== gone.key) continue;
          const state = states.get(op.operationId)!;
          const set = setsFor(op, sets, rules, learntSets)[0];
          await runCase(
            state,
            'stateful',
            {
              op,
              set,
              authMode: 'normal',
              path: { [pathParams[0]!.name]: String(gone.value) },
              params: [],
              media: undefined,
              body: undefined,
              uses: new Map(),
              note: `after its delete`,
            },
            (status) => (status < 300 ? `${gone.key} ${gone.value} was deleted and still answers ${status}` : undefined),
            { failureCheck: 'use_after_free' },
          );
        }
      }
    for (const op of order) await sweep(states.get(op.operationId)!);
  } catch (error) {
    if (error instanceof FirstFailure) stoppedEarly = true;
    else if (!(error instanceof DeadlineReached)) throw error;
    else timedOut = true;
  }

  // clean-up: what this run made and a delete operation can remove
  const leftBehind: ApiCheckReport['leftBehind'] = [];
  if (!timedOut && !stoppedEarly) {
    for (const op of allOperations.filter((o) => o.method === 'delete' && included(o, options.include ?? [], options.exclude ?? []))) {
      const pathParams = op.params.filter((p) => p.in === 'path');
      if (pathParams.length !== 1) continue;
      const key = inputKey(pathParams[0]!.name);
      const state = states.get(op.operationId)!;
      for (const made of pool.candidates(key, (v) => validators.accepts(pathParams[0]!.schemaAt, v), undefined)) {
        if (!made.created || deleted.some((d) => d.key === key && d.value === made.value)) continue;
        const set = sets.find((s) => s.name === made.set) ?? setsFor(op, sets, rules, learntSets)[0];
        try {
          const sent = await runCase(
            state,
            'cleanup',
            {
              op,
              set,
              authMode: 'normal',
              path: { [pathParams[0]!.name]: String(made.value) },
              params: [],
              media: undefined,
              body: undefined,
              uses: new Map(),
              note: `clean-up of what ${made.from} made`,
            },
            () => undefined,
          );
          if (sent && sent.response.status < 300) deleted.push({ key, value: made.value });
        } catch (error) {
          if (error instanceof FirstFailure) break;
          if (!(error instanceof DeadlineReached)) throw error;
          timedOut = true;
          break;
        }
      }
    }
  }
  for (const key of pool.keys)
    for (const v of pool.candidates(key, () => true, undefined))
      if (v.created && !deleted.some((d) => d.key === key && d.value === v.value) && v.from !== '')
        leftBehind.push({ key, value: String(v.value), from: v.from });

  for (const state of states.values()) {
    if (emitted.has(state.op.operationId)) continue;
    if (state.outcome === undefined) {
      state.outcome = 'skipped';
      state.note = timedOut
        ? 'not run: the run reached its time bound'
        : stoppedEarly
          ? 'not run: stopped at the first failure'
          : state.note;
    } else if (state.cases.some((c) => c.failures.length > 0)) state.outcome = 'failed';
    emit(state);
  }

  const unseenProperties = properties.unseen((pointer) => r.at(pointer), r.deref);
  if (options.failOnUnseenProperties)
    for (const u of unseenProperties)
      cases.push({
        operationId: u.operationId,
        check: 'positive',
        request: `responses ${u.status} ${u.mediaType}`,
        status: undefined,
        durationMs: 0,
        failures: [
          {
            check: 'unseen_response_properties',
            operationId: u.operationId,
            status: undefined,
            pointer: u.schemaAt,
            message: `declared but never seen in any ${u.status} answer: ${u.unseen.join(', ')}`,
            request: `${u.operationId} ${u.status}`,
          },
        ],
      });
  if (timedOut)
    cases.push({
      operationId: '(run)',
      check: 'positive',
      request: 'the whole run',
      status: undefined,
      durationMs: 0,
      failures: [
        {
          check: 'time_bound',
          operationId: '(run)',
          status: undefined,
          pointer: '#',
          message: `the run reached its time bound (${options.maxTimeMs} ms) before every operation was checked`,
          request: '',
        },
      ],
    });

  const failures = cases.flatMap((c) => c.failures);
  return {
    ok: failures.length === 0,
    cases,
    failures,
    coverage: operations.map((op) => ({
      operationId: op.operationId,
      method: op.method.toUpperCase(),
      path: op.path,
      statuses: Object.fromEntries(coverage.get(op.operationId)!),
      outcome: states.get(op.operationId)!.outcome ?? 'skipped',
    })),
    unseenProperties,
    leftBehind,
    timedOut,
    durationMs: Math.round(performance.now() - runStarted),
  };
}
