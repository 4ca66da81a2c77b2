/**
 * The shared state of one {@link checkApi} run, made in one place ({@link createRunState}): the options as resolved, the
 * document's resolver and operations, the state of each operation, what the run learnt (pooled values, the credential
 * set that worked), what it records (cases, status coverage, seen properties) and how it ends (deadline, flags).
 */
import type { SecuritySchemes } from '@paygate/client/runtime/security.js';
import { SpecValidators } from '../conformance.js';
import { included, type CredentialRule, type CredentialSet } from '../credentials.js';
import { makeResolver, readOperations, securitySchemes, upgradeNullable, type OperationInfo, type Resolver } from '../document.js';
import { staticProducers } from '../operation-order.js';
import { ValuePool, type Scalar } from '../pool.js';
import { PropertyCoverage } from '../property-coverage.js';
import type { RequestSpec, Sent } from '../request/request-spec.js';
import type { Json, JsonObject } from '../samples.js';
import { ALL_CHECKS, type CheckApiOptions, type CheckCase, type CheckName, type OperationOutcome } from '../types.js';

/** Thrown by a send past the run's time bound (`maxTimeMs`): the run stops and reports `timedOut`. */
export class DeadlineReached extends Error {}
/** Thrown by a case that failed, with `failFast`: the run stops at its first failure. */
export class FirstFailure extends Error {}

/** What an operation's 4xx answers taught (D272 contract request bodies per media type). */
export interface Learnt {
  /** Optional inputs to send: `query:name`, `header:name`, `cookie:name`, `body:a.b`. */
  inputs: Set<string>;
  /** Inputs to make unique per request. */
  unique: Set<string>;
}

/** One operation's progress through the run. */
export interface OpState {
  op: OperationInfo;
  outcome: OperationOutcome | undefined;
  rounds: number;
  learnt: Learnt;
  exampleIndex: number;
  /** Values that failed this operation, per input key. */
  avoid: Map<string, Set<Scalar>>;
  /** The positive request that got a 2xx, and its answer. */
  success: RequestSpec | undefined;
  successSent: Sent | undefined;
  lastResponse: { status: number; text: string } | undefined;
  /** Why it did not reach a 2xx, when it did not. */
  note: string | undefined;
  cases: CheckCase[];
  startedAt: number | undefined;
}

export interface RunState {
  options: CheckApiOptions;
  startedAt: number;

  // the document
  r: Resolver;
  allOperations: OperationInfo[];
  /** The operations `include`/`exclude` select. */
  operations: OperationInfo[];
  schemes: SecuritySchemes;
  validators: SpecValidators;
  /** Which operations' 2xx answers can carry each input key (operation-order.ts). */
  producers: Map<string, OperationInfo[]>;

  // the options, resolved
  sets: CredentialSet[];
  rules: readonly CredentialRule[];
  tenants: Set<string>;
  checks: Set<CheckName>;
  fetch: typeof fetch;
  sleep: (ms: number) => Promise<void>;
  maxRateLimitWaitMs: number;
  timeoutMs: number;
  /** Epoch ms past which no request is sent (infinite without `maxTimeMs`). */
  deadline: number;
  maxNegatives: number;
  concurrency: number;
  settleMs: number;
  failFast: boolean;

  // the deployment
  /** The base URL without trailing slashes. */
  base: string;
  baseUrl: URL;
  basePath: string;
  /** Hosts invented URLs may keep (the deployment's own). */
  ownHosts: Set<string>;

  // what the run learnt
  pool: ValuePool;
  /** operationId -> the credential set that got its 2xx. */
  learntSets: Map<string, string>;
  /** This run's tag and counter for fresh values (request/unique-values.ts). */
  runTag: string;
  counter: number;
  /** operationId -> its positive request on the final try, when it got no 2xx (the basis of its later checks). */
  lastSpec: Map<string, RequestSpec>;
  /** What a delete removed (use after free, clean-up). */
  deleted: { key: string; value: Scalar }[];

  // what the run records
  cases: CheckCase[];
  /** operationId -> declared status key -> times answered. */
  coverage: Map<string, Map<string, number>>;
  properties: PropertyCoverage;
  states: Map<string, OpState>;
  /** Paths whose undeclared method was tried. */
  methodsChecked: Set<string>;
  /** Operations whose `operation` event went out. */
  emitted: Set<string>;
  timedOut: boolean;
  stoppedEarly: boolean;
}

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function newOpState(op: OperationInfo): OpState {
  return {
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
  };
}

export function createRunState(options: CheckApiOptions): RunState {
  const startedAt = performance.now();
  const doc = upgradeNullable(options.document as Json) as JsonObject;
  const r = makeResolver(doc);
  const allOperations = readOperations(doc, r);
  const operations = allOperations.filter((op) => included(op, options.include ?? [], options.exclude ?? []));
  const sets: CredentialSet[] = [...(options.credentials ?? [])];
  if (options.auth !== undefined && Object.keys(options.auth).length > 0) sets.unshift({ name: 'default', auth: options.auth });
  const base = options.baseUrl.replace(/\/+$/, '');
  const baseUrl = new URL(base);
  const basePath = baseUrl.pathname.replace(/\/+$/, '');
  return {
    options,
    startedAt,
    r,
    allOperations,
    operations,
    schemes: securitySchemes(doc, r),
    validators: new SpecValidators(doc),
    producers: staticProducers(allOperations, r),
    sets,
    rules: options.rules ?? [],
    tenants: new Set(options.tenants ?? []),
    checks: new Set(options.checks ?? ALL_CHECKS),
    fetch: options.fetch ?? globalThis.fetch,
    sleep: options.sleep ?? wait,
    maxRateLimitWaitMs: options.maxRateLimitWaitMs ?? 30_000,
    timeoutMs: options.timeoutMs ?? 15_000,
    deadline: options.maxTimeMs === undefined ? Number.POSITIVE_INFINITY : Date.now() + options.maxTimeMs,
    maxNegatives: options.maxNegatives ?? 60,
    concurrency: Math.max(1, options.concurrency ?? 4),
    settleMs: options.settleMs ?? 5_000,
    failFast: options.failFast === true,
    base,
    baseUrl,
    basePath,
    ownHosts: new Set([baseUrl.hostname.toLowerCase()]),
    pool: new ValuePool(allOperations, ValuePool.resourceKeys(allOperations), basePath),
    learntSets: new Map(),
    runTag: Date.now().toString(36).slice(-5) + Math.random().toString(36).slice(2, 5),
    counter: 0,
    lastSpec: new Map(),
    deleted: [],
    cases: [],
    coverage: new Map(operations.map((op) => [op.operationId, new Map([...op.responses.keys()].map((k) => [k, 0]))])),
    properties: new PropertyCoverage(),
    states: new Map(operations.map((op) => [op.operationId, newOpState(op)])),
    methodsChecked: new Set(),
    emitted: new Set(),
    timedOut: false,
    stoppedEarly: false,
  };
}

/** An operation's state (every selected operation has one). */
export const stateOf = (run: RunState, op: OperationInfo): OpState => run.states.get(op.operationId)!;
