/**
 * The public vocabulary of a {@link checkApi} run: the checks it knows, its options, the cases it records, the events it
 * emits as it goes and the report it returns.
 */
import type { CheckFailure } from './conformance.js';
import type { CredentialRule, CredentialSet, Selector } from './credentials.js';
import type { UnseenProperties } from './property-coverage.js';

export type { CheckFailure } from './conformance.js';

export type CheckName =
  | 'positive'
  | 'negative'
  | 'unauthenticated'
  | 'stateful'
  | 'boundaries'
  | 'idempotency'
  | 'isolation'
  | 'invariants'
  | 'methods';
export const ALL_CHECKS: readonly CheckName[] = [
  'positive',
  'negative',
  'unauthenticated',
  'stateful',
  'boundaries',
  'idempotency',
  'isolation',
  'invariants',
  'methods',
];

export interface CheckApiOptions {
  /** The bundled OpenAPI document (internal `$ref`s only), e.g. from `paygate contract --spec FILE`. */
  document: Readonly<Record<string, unknown>>;
  /** The deployment's API root (the operation paths are appended). */
  baseUrl: string;
  /** One credential set (named `default`): credentials by the spec's security scheme names. */
  auth?: Readonly<Record<string, unknown>>;
  /** Named credential sets; the first covers operations no rule assigns. */
  credentials?: readonly CredentialSet[];
  /** Which set serves which operations (first match wins). */
  rules?: readonly CredentialRule[];
  /** Sets that are tenants of their own: what another set made must not be readable with them. */
  tenants?: readonly string[];
  include?: readonly Selector[];
  exclude?: readonly Selector[];
  /** Custom fetch (tests). Default `globalThis.fetch`. */
  fetch?: typeof fetch;
  /** Longest total wait for 429 `Retry-After` per request. Default 30 s. */
  maxRateLimitWaitMs?: number;
  /** Delay function (tests). */
  sleep?: (ms: number) => Promise<void>;
  /** Which checks run. Default all. */
  checks?: readonly CheckName[];
  /** Per-request timeout. Default 15 s. */
  timeoutMs?: number;
  /** The whole run's time bound (ms). Default none. */
  maxTimeMs?: number;
  /** A declared response property never seen in any answer fails the run. Default false (reported). */
  failOnUnseenProperties?: boolean;
  /** Negative requests per operation at most. Default 60. */
  maxNegatives?: number;
  /** Requests in flight at once for an operation's independent checks. Default 4. */
  concurrency?: number;
  /** How long the run waits, at most, for results an API makes asynchronously (a delivery log...). Default 5 s. */
  settleMs?: number;
  /** Stop at the first failure (a mutation test, a CI job that wants the first problem fast). Default false. */
  failFast?: boolean;
  /** Progress: called as each operation finishes. */
  onEvent?: (event: CheckEvent | PositiveEvent) => void;
}

export interface CheckCase {
  operationId: string;
  check: CheckName | 'cleanup';
  request: string;
  status: number | undefined;
  failures: CheckFailure[];
  durationMs: number;
}

export type OperationOutcome = 'passed' | 'failed' | 'unreached' | 'skipped';

/** An operation's positive request and its stateful checks are done (its full line comes with `operation`). */
export interface PositiveEvent {
  type: 'positive';
  operationId: string;
  method: string;
  path: string;
  status: number | undefined;
  credentialSet: string | undefined;
}

export interface CheckEvent {
  type: 'operation';
  operationId: string;
  method: string;
  path: string;
  outcome: OperationOutcome;
  /** Why it did not reach a 2xx, when it did not. */
  note: string | undefined;
  credentialSet: string | undefined;
  cases: CheckCase[];
  durationMs: number;
}

export interface ApiCheckReport {
  ok: boolean;
  cases: CheckCase[];
  failures: CheckFailure[];
  /** operationId -> declared statuses -> times seen (0 = declared, never exercised). */
  coverage: { operationId: string; method: string; path: string; statuses: Record<string, number>; outcome: OperationOutcome }[];
  /** Declared response properties no answer carried, per answered response schema. */
  unseenProperties: UnseenProperties[];
  /** What the run made and could not delete (no delete operation, or the delete failed). */
  leftBehind: { key: string; value: string; from: string }[];
  /** The run stopped at its time bound. */
  timedOut: boolean;
  durationMs: number;
}
