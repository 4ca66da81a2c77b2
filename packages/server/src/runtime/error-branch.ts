/**
 * Which alternative of an error schema's `anyOf`/`oneOf` an answer is written in (D483, "Error body alternative chosen
 * by the answer's status"): Increase's `default` error is an `anyOf` of thirteen objects, each pinning its `status`
 * (`enum: [400]`, `[401]`...) and its `type` code; a body must be written in the one whose pins hold the answer, not in
 * the first.
 *
 * Pure: the filler reads each alternative's pins from the schema (error-fill.ts) and asks here for the order to try
 * them in.
 */

/** What one alternative of an error schema pins. */
export interface BranchPins {
  /** The statuses its status property can hold (its const or enum); undefined: it pins none (any status fits). */
  readonly statuses?: readonly number[];
  /** The string values its const and enum properties hold (`invalid_api_key_error`): what kind of error it is. */
  readonly codes: readonly string[];
  /** Its body says what went wrong (a message or the fields), not only fixed values. */
  readonly says: boolean;
}

/** One alternative to try: its index and, when it cannot hold the answer's status, the status its body says instead. */
export interface BranchTry {
  readonly index: number;
  readonly status?: number;
}

/**
 * The alternatives in the order to try them for an answer: first those whose status pins hold the answer's status,
 * then those that pin no status, then those that pin others, nearest first (same class of status before another
 * class, then the smallest distance: a 501 goes to the 500 alternative). Within each group an alternative that says
 * what went wrong comes first, then the one whose codes say the answer's kind best (`rank`, lower is better, Infinity
 * when none does), then the order written.
 *
 * Why an alternative that cannot hold the status is still tried (with the status it can hold): the body must validate
 * against the schema the operation declares, and no other body of this schema can; the HTTP status line still says the
 * answer's own status (D483, "Error body alternative chosen by the answer's status").
 */
export function branchOrder(branches: readonly BranchPins[], status: number, rank: (codes: readonly string[]) => number): BranchTry[] {
  const keyed = branches.map((pins, index) => {
    const nearest = nearestStatus(pins.statuses, status);
    const tier = nearest === undefined ? 1 : nearest === status ? 0 : 2;
    const distance = tier === 2 ? (classOf(nearest!) === classOf(status) ? 0 : 1000) + Math.abs(nearest! - status) : 0;
    return {
      key: [tier, distance, pins.says ? 0 : 1, rank(pins.codes), index],
      index,
      ...(tier === 2 ? { status: nearest! } : {}),
    };
  });
  keyed.sort((a, b) => compareKeys(a.key, b.key));
  return keyed.map(({ index, status: said }) => (said === undefined ? { index } : { index, status: said }));
}

/** Whether any alternative pins a status: only then does the answer's status choose among them. */
export function pinsStatus(branches: readonly Pick<BranchPins, 'statuses'>[]): boolean {
  return branches.some((b) => b.statuses !== undefined && b.statuses.length > 0);
}

const classOf = (status: number): number => Math.floor(status / 100);

/** The pinned status nearest the answer's (itself when pinned; same class first, then distance, then the lower). */
function nearestStatus(statuses: readonly number[] | undefined, status: number): number | undefined {
  if (statuses === undefined || statuses.length === 0) return undefined;
  if (statuses.includes(status)) return status;
  const score = (s: number): number => (classOf(s) === classOf(status) ? 0 : 1000) + Math.abs(s - status);
  return [...statuses].sort((a, b) => score(a) - score(b) || a - b)[0];
}

function compareKeys(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < a.length; i++) {
    const d = a[i]! - b[i]!;
    if (d !== 0 && !Number.isNaN(d)) return d;
  }
  return 0;
}
