/**
 * runtime/error-branch.ts: the order an answer tries the alternatives of an error schema in (D483, "Error body
 * alternative chosen by the answer's status").
 */
import { describe, expect, it } from 'vitest';
import { type BranchPins, type BranchTry, branchOrder, pinsStatus } from './error-branch.js';

/** Increase's alternatives, in its order (status and `type` code of each). */
const increase: BranchPins[] = [
  { statuses: [404], codes: ['api_method_not_found_error'], says: true },
  { statuses: [403], codes: ['environment_mismatch_error'], says: true },
  { statuses: [500], codes: ['internal_server_error'], says: true },
  { statuses: [401], codes: ['invalid_api_key_error'], says: true },
  { statuses: [400], codes: ['malformed_request_error'], says: true },
  { statuses: [400], codes: ['invalid_parameters_error'], says: true },
  { statuses: [429], codes: ['rate_limited_error'], says: true },
];
/** A rank that prefers the codes holding `word` (the filler's is by the words of the answer's kind). */
const preferring =
  (word: string) =>
  (codes: readonly string[]): number =>
    codes.some((c) => c.includes(word)) ? 1 : Number.POSITIVE_INFINITY;
const none = (): number => Number.POSITIVE_INFINITY;

describe('branchOrder', () => {
  it.each<{ name: string; branches: BranchPins[]; status: number; rank: (codes: readonly string[]) => number; first: BranchTry[] }>([
    { name: 'a 401 goes to the alternative that pins 401', branches: increase, status: 401, rank: none, first: [{ index: 3 }] },
    {
      name: 'a 400 to the 400 alternative whose code says the kind (invalid parameters), then the other 400',
      branches: increase,
      status: 400,
      rank: preferring('invalid_param'),
      first: [{ index: 5 }, { index: 4 }],
    },
    {
      name: 'two alternatives pin the status and no code says the kind: the order written',
      branches: increase,
      status: 400,
      rank: none,
      first: [{ index: 4 }, { index: 5 }],
    },
    {
      name: 'a 501 no alternative pins: the nearest of its class (500), saying 500',
      branches: increase,
      status: 501,
      rank: none,
      first: [{ index: 2, status: 500 }],
    },
    {
      name: 'a 405: the nearest client error (404), then 403',
      branches: increase,
      status: 405,
      rank: none,
      first: [
        { index: 0, status: 404 },
        { index: 1, status: 403 },
      ],
    },
    {
      name: 'an alternative that pins no status holds any: after the exact pin, before a near one',
      branches: [
        { statuses: [404], codes: [], says: true },
        { codes: [], says: true },
        { statuses: [400], codes: [], says: true },
      ],
      status: 400,
      rank: none,
      first: [{ index: 2 }, { index: 1 }, { index: 0, status: 404 }],
    },
    {
      name: 'within a status, an alternative that says what went wrong before one of fixed values only',
      branches: [
        { statuses: [400], codes: ['invalid'], says: false },
        { statuses: [400], codes: [], says: true },
      ],
      status: 400,
      rank: preferring('invalid'),
      first: [{ index: 1 }, { index: 0 }],
    },
    {
      name: 'a status pinned by none of another class: the nearest of any class',
      branches: [
        { statuses: [400], codes: [], says: true },
        { statuses: [422], codes: [], says: true },
      ],
      status: 503,
      rank: none,
      first: [
        { index: 1, status: 422 },
        { index: 0, status: 400 },
      ],
    },
  ])('$name', ({ branches, status, rank, first }) => {
    const order = branchOrder(branches, status, rank);
    expect(order.slice(0, first.length)).toEqual(first);
    expect(order.map((t) => t.index).sort((a, b) => a - b)).toEqual(branches.map((_, i) => i));
  });
});

describe('pinsStatus', () => {
  it.each([
    [[{ statuses: [400] }, {}], true],
    [[{}, {}], false],
    [[{ statuses: [] }], false],
  ] as [{ statuses?: number[] }[], boolean][])('%j: %s', (branches, expected) => {
    expect(pinsStatus(branches)).toBe(expected);
  });
});
