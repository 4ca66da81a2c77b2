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
import { isFileSchema } from './bodies.js';
import type { CheckFailure } from './conformance.js';
import { mentionedNames } from './conformance.js';
import { bodyNegatives, scalarNegatives } from './negatives.js';
import { isJsonMedia } from './conformance.js';
import { covers, included, setsFor, type CredentialSet } from './credentials.js';
import { isObj, type OperationInfo } from './document.js';
import { planOrder } from './operation-order.js';
import { inputKey, type Scalar } from './pool.js';
import { positiveSpec as buildPositiveSpec } from './request/positive-request.js';
import { IDEMPOTENCY, paramId, type RequestSpec, type Sent } from './request/request-spec.js';
import { childPointer as childPointerOf, collectProperties as collectPropertiesOf } from './request/schema-paths.js';
import { uniqueValue as uniqueValueOf, withFreshKeys as freshKeys } from './request/unique-values.js';
import { emitOperation } from './run/events.js';
import { mapLimit } from './run/map-limit.js';
import { expect4xx, is4xx, runCase as runOneCase, type CaseOptions } from './run/run-case.js';
import { DeadlineReached, FirstFailure, createRunState, type OpState } from './run/state.js';
import type { Json, JsonObject } from './samples.js';
import type { ApiCheckReport, CheckApiOptions, CheckCase } from './types.js';

export async function checkApi(options: CheckApiOptions): Promise<ApiCheckReport> {
  const run = createRunState(options);
  const { r, allOperations, operations, sets, rules, tenants, checks, concurrency, settleMs, sleep, base, baseUrl } = run;
  const { basePath, validators, pool, learntSets, cases, coverage, properties, states, deleted, lastSpec, methodsChecked, emitted } = run;
  const staticProducersOf = run.producers;
  const maxNegatives = run.maxNegatives;
  const positiveSpec = (state: OpState, set: CredentialSet | undefined, pins: Record<string, Scalar>, final: boolean) =>
    buildPositiveSpec(run, state, set, pins, final);
  const runCase = (
    state: OpState,
    check: CheckCase['check'],
    spec: RequestSpec,
    expect: (status: number, sent: Sent) => string | undefined,
    o?: CaseOptions,
  ) => runOneCase(run, state, check, spec, expect, o);
  const uniqueValue = (current: Json | undefined, pointer: string | undefined) => uniqueValueOf(run, current, pointer);
  const childPointer = (at: string, name: string) => childPointerOf(r, at, name);
  const collectProperties = (at: string) => collectPropertiesOf(r, at);
  const withFreshKeys = (spec: RequestSpec) => freshKeys(run, spec);
  const emit = (state: OpState) => emitOperation(run, state);

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
    if (error instanceof FirstFailure) run.stoppedEarly = true;
    else if (!(error instanceof DeadlineReached)) throw error;
    else run.timedOut = true;
  }

  // clean-up: what this run made and a delete operation can remove
  const leftBehind: ApiCheckReport['leftBehind'] = [];
  if (!run.timedOut && !run.stoppedEarly) {
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
          run.timedOut = true;
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
      state.note = run.timedOut
        ? 'not run: the run reached its time bound'
        : run.stoppedEarly
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
  if (run.timedOut)
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
    timedOut: run.timedOut,
    durationMs: Math.round(performance.now() - run.startedAt),
  };
}
