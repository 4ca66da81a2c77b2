/**
 * Operations of one path and method that only their bodies tell apart (D485, "Operations told apart by their bodies
 * dispatched by body schema"): Azure Face's `POST /verify` and `/verify#overload=person` (a fragment label, so one
 * route), both `application/json`, one requiring `faceId1` and `faceId2`, the other `faceId` and a person. The
 * dispatcher reads the body with the first one's steps, then hands the request to the first whose body schema accepts
 * it; when none does, to the first, whose validation names its own fields.
 */
import type { Request } from 'express';
import type { OperationRoute } from './types.js';

/** What the body choice reads of an operation under a route. */
export interface BodyContender {
  readonly operation: Pick<OperationRoute, 'requestMediaTypes' | 'security'>;
  /** The number of its steps through which its body is read (its guard, the body parsers); absent: it reads none. */
  readonly bodyAt?: number;
  /** Whether its body schema accepts the request's parsed body (body-accepted.ts); absent: it cannot tell. */
  readonly acceptsBody?: (req: Request) => boolean;
}

/**
 * Whether a request dispatched to `a` may be handed to `b` once its body is read: both read their body in the same
 * first steps and can check it, they share a declared media type, and they are guarded alike (the same security:
 * the request was authenticated by `a`'s guard, which `b`'s would repeat).
 */
export function toldApartByBody(a: BodyContender, b: BodyContender): boolean {
  if (a.bodyAt === undefined || b.bodyAt === undefined || a.acceptsBody === undefined || b.acceptsBody === undefined) return false;
  if (a.bodyAt !== b.bodyAt || JSON.stringify(a.operation.security) !== JSON.stringify(b.operation.security)) return false;
  return a.operation.requestMediaTypes.some((m) => b.operation.requestMediaTypes.includes(m));
}

/** Of the contenders (the dispatched operation first), the first whose body schema accepts the request; the first when none does. */
export function chosenByBody<T extends Pick<BodyContender, 'acceptsBody'>>(contenders: readonly [T, ...T[]], req: Request): T {
  return contenders.find((c) => c.acceptsBody?.(req) === true) ?? contenders[0];
}
