/**
 * Answers the probe cannot judge, told apart from the scaffold's failures (D404 corpus scaffold probe): a request `fetch` refuses to send
 * (a body on GET, a header name with a space), and an answer read against a wildcard media type (`*\/*`,
 * `application/*`), which SpecProbe compares literally. Used while probing and, for results written by an earlier
 * runner, again at `--merge`, so every shard is judged by the same rules.
 */
import type { DocumentResult } from './types.js';

const LIMITS: readonly { match: RegExp; reason: string }[] = [
  { match: /GET\/HEAD method cannot have body/, reason: 'a request body on GET or HEAD' },
  { match: /is an invalid header name/, reason: 'a header parameter whose name no HTTP client sends' },
  {
    match: /is not among (?:[^;]*, )?(?:\*|[a-z]+)\/\*(?:,|$)/,
    reason: 'a response declared with a wildcard media type (read by the probe literally)',
  },
];

/** `status 404, expected 501`: the one problem a HEAD answer can have. */
const WRONG_STATUS = /^status \d+, expected \d+$/;

/** The reason the probe cannot judge this problem, or undefined when the problem is the scaffold's. */
export function probeLimit(problem: string, label = ''): string | undefined {
  // a HEAD answer has no body by definition: only its status can be read (a wrong status is the scaffold's; an empty
  // body read against the schemas of a status, declared or not, is the probe's limit)
  if (label.startsWith('HEAD ') && !WRONG_STATUS.test(problem)) return 'the body of a HEAD answer (there is none to read)';
  return LIMITS.find((l) => l.match.test(problem))?.reason;
}

/**
 * A result with the probe's limits moved out of its exceptions (into `notProbed`), and its outcome `ok` when nothing
 * else is left; unchanged when its exceptions were capped (the ones not kept cannot be read again).
 */
export function withProbeLimits(result: DocumentResult): DocumentResult {
  const probe = result.paygate.probe;
  if (probe === undefined || probe.exceptionCount !== probe.exceptions.length) return result;
  const limited = probe.exceptions.filter((e) => probeLimit(e.problem, e.label) !== undefined);
  if (limited.length === 0) return result;
  const notProbed = { ...(probe.notProbed ?? {}) };
  for (const e of limited) notProbed[probeLimit(e.problem, e.label)!] = (notProbed[probeLimit(e.problem, e.label)!] ?? 0) + 1;
  const exceptions = probe.exceptions.filter((e) => probeLimit(e.problem, e.label) === undefined);
  return {
    ...result,
    paygate: {
      ...result.paygate,
      outcome: exceptions.length === 0 ? 'ok' : result.paygate.outcome,
      probe: { ...probe, requests: probe.requests - limited.length, notProbed, exceptions, exceptionCount: exceptions.length },
    },
  };
}
