import { HttpError, RenderedResponse, type HandlerCall } from '@paygate/server';
import type { Principal } from '../handlers.js';
import { toHttpError, withErrorMapping } from '../http/errors.js';
import type { ReferenceRuntime } from '../runtime.js';
import { bodyOf, canonical } from './canonical.js';
import { claimIdempotencyKey, idempotencyScope, recordIdempotentOutcome, requestFingerprint, type StoredResponse } from './store.js';

const IDEMPOTENCY_HEADER = 'idempotency-key';

/** The stored form of a rendered response (its exact body text). */
function stored(rendered: RenderedResponse): StoredResponse {
  const body =
    rendered.body === undefined ? '' : typeof rendered.body === 'string' ? rendered.body : Buffer.from(rendered.body).toString('utf8');
  return {
    status: rendered.status,
    contentType: rendered.body === undefined ? null : rendered.contentType,
    body,
    headers: { ...rendered.headers },
  };
}

/** Statuses whose answer is final and recorded for replay: 2xx-4xx except 429 (a retry may succeed later). */
function isFinalStatus(status: number): boolean {
  return status < 500 && status !== 429;
}

/** A non-final answer (5xx) leaves the transaction by this error so that it rolls back, and is returned after. */
class RollBack extends Error {
  constructor() {
    super('non-final response: roll the idempotent request back');
  }
}

type IdempotentOutcome<TResult> =
  | { kind: 'result'; result: TResult }
  | { kind: 'error'; error: HttpError }
  | { kind: 'replay'; stored: StoredResponse };

/**
 * The ONE idempotency wrapper (POSTs declaring `Idempotency-Key`), a typed hook around the handler (D120's
 * `around`: no casts; the bytes recorded are what the scaffold renders), exactly once:
 * - the key is claimed, the handler runs and the key's outcome is recorded in ONE database transaction (every
 *   service statement joins it through `transactionScope`). A crash or a failure anywhere before commit leaves
 *   nothing, so a retry runs once; after commit the outcome is there, so a retry replays it;
 * - the claim is a transaction-scoped advisory lock, so a retry cannot take over a first execution that can still
 *   commit, however long it stalls (409 ERR_IDEMPOTENCY_409 meanwhile);
 * - keys belong to the account the request acts for (see idempotencyScope), not to the credential;
 * - final answers (2xx, 4xx but 429) are recorded, the exact body text sealed; a 4xx rolls the handler's own
 *   writes back to a savepoint first. 5xx and 429 roll everything back, so the key stays free for a retry;
 * - a replay sends the stored text byte for byte, with its content type, headers and `Idempotent-Replayed: true`;
 *   the same key with another request is 422 ERR_IDEMPOTENCY_422.
 */
export async function withIdempotency<TRequest, TResult>(
  rt: ReferenceRuntime,
  call: HandlerCall<TRequest, TResult, Principal>,
  inFlight: Set<string>,
): Promise<TResult | RenderedResponse> {
  const { ctx } = call;
  const key = ctx.req.get(IDEMPOTENCY_HEADER);
  if (key === undefined) return withErrorMapping(call.next);
  let outcome: IdempotentOutcome<TResult>;
  let claimedHere: string | undefined;
  let nonFinal: { result: TResult } | undefined;
  try {
    const scope = await idempotencyScope(rt.db, ctx.principal, ctx.req.get('x-merchant-id'), ctx.req.ip ?? 'unknown');
    const claim = { scope, key, fingerprint: requestFingerprint(ctx.req.method, ctx.req.path, canonical(bodyOf(call.request))) };
    // Same key already running in this process: 409 at once, without waiting for a connection (on PGlite, the one
    // connection is that request's). Other processes are kept out by the key's advisory lock below.
    const local = `${scope}\n${key}`;
    if (inFlight.has(local))
      throw new HttpError(409, 'ERR_IDEMPOTENCY_409', 'A request with this Idempotency-Key is still being processed; retry later');
    inFlight.add((claimedHere = local));
    outcome = await rt.db.transactionScope(async (tx): Promise<IdempotentOutcome<TResult>> => {
      const claimed = await claimIdempotencyKey(tx, rt.deps, claim.scope, claim.key, claim.fingerprint);
      if (claimed.kind === 'replay') return { kind: 'replay', stored: claimed };
      await tx.query('SAVEPOINT idempotent_request');
      let result: TResult;
      try {
        result = await call.next();
      } catch (err) {
        const mapped = toHttpError(err);
        if (!(mapped instanceof HttpError) || !isFinalStatus(mapped.status)) throw mapped;
        await tx.query('ROLLBACK TO SAVEPOINT idempotent_request');
        // what the scaffold's error handler sends for it
        await recordIdempotentOutcome(tx, rt.deps, claim, stored(call.render({ error: mapped })));
        return { kind: 'error', error: mapped };
      }
      const rendered = call.render({ result });
      if (!isFinalStatus(rendered.status)) {
        nonFinal = { result };
        throw new RollBack();
      }
      await recordIdempotentOutcome(tx, rt.deps, claim, stored(rendered));
      return { kind: 'result', result };
    });
  } catch (err) {
    if (err instanceof RollBack && nonFinal !== undefined) return nonFinal.result;
    throw toHttpError(err);
  } finally {
    if (claimedHere !== undefined) inFlight.delete(claimedHere);
  }
  if (outcome.kind === 'error') throw outcome.error;
  if (outcome.kind === 'result') return outcome.result;
  const replay = outcome.stored;
  // The stored text verbatim (byte-identical to the first answer), not re-serialised from a parsed body.
  return new RenderedResponse(
    replay.status,
    replay.contentType,
    { ...replay.headers, 'Idempotent-Replayed': 'true' },
    replay.contentType === null ? undefined : replay.body,
  );
}
