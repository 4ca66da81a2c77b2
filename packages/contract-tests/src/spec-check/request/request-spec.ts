/**
 * A request as the checker plans it, before it is encoded: the operation, the credential set and how to use it, the
 * path, parameters and body, and where each input's value came from (so a 4xx naming it can be learnt from).
 */
import type { CredentialSet } from '../credentials.js';
import type { MediaSpec, OperationInfo, ParamSpec } from '../document.js';
import type { Scalar } from '../pool.js';
import type { Json } from '../samples.js';

/** Where a sent input's value came from: a pooled value (an earlier answer carried it) or the spec. */
export interface Use {
  key: string;
  value: Scalar;
  pooled: boolean;
}

export interface RequestSpec {
  op: OperationInfo;
  set: CredentialSet | undefined;
  /** `normal`: the set's credentials; `none`; `garbage`: wrong values; `omit`: one scheme of an AND dropped. */
  authMode: 'normal' | 'none' | 'garbage' | { omit: string };
  path: Record<string, string>;
  params: [ParamSpec, Json][];
  media: MediaSpec | undefined;
  body: Json | undefined;
  /** input id (`path:order_id`, `body:payment_id`) -> what was used. */
  uses: Map<string, Use>;
  note: string | undefined;
  /** Another method than the operation's (the undeclared-method check). */
  method?: string;
}

/** An answer: the response and its body, read. */
export interface Sent {
  response: Response;
  text: string;
}

/** An idempotency key parameter (IETF draft's `Idempotency-Key`, and its `_`/no-separator spellings). */
export const IDEMPOTENCY = /^idempotency[-_]?key$/i;

/** A parameter's input id: `query:limit`, `header:x-workspace`. */
export const paramId = (p: ParamSpec): string => `${p.in}:${p.name.toLowerCase()}`;

/** Whether an operation needs credentials (declares security and no empty alternative). */
export const isSecured = (op: OperationInfo): boolean => op.security.length > 0 && !op.security.some((alt) => alt.length === 0);

/** A request with nothing but path parameters (a by-id read, a delete), with the set's credentials. */
export function pathOnlyRequest(
  op: OperationInfo,
  set: CredentialSet | undefined,
  path: Record<string, string>,
  note: string,
): RequestSpec {
  return { op, set, authMode: 'normal', path, params: [], media: undefined, body: undefined, uses: new Map(), note };
}
