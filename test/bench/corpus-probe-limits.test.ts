import { describe, expect, it } from 'vitest';
import { probeLimit } from '../../bench/corpus/probe-limits.js';

const HEAD_BODY = 'the body of a HEAD answer (there is none to read)';

describe('probeLimit', () => {
  it.each([
    // restful4up, CDC's prime-data-hub: a HEAD refused with an undeclared 400 has no body to read against the document's 400 schemas
    [
      'HEAD /clean (an undeclared query parameter)',
      "status 400 is undeclared and the body fits none of the document's 400 schemas",
      HEAD_BODY,
    ],
    ['HEAD /key/sample', 'not the declared default shape: content type application/json is not among */*', HEAD_BODY],
    ['HEAD /key/sample', 'the answer does not name the field paygate_probe_unknown', HEAD_BODY],
    // a wrong status is the scaffold's, HEAD or not
    ['HEAD /clean', 'status 404, expected 501', undefined],
    ['GET /clean', "status 400 is undeclared and the body fits none of the document's 400 schemas", undefined],
    [
      'GET /x',
      'not the declared 200 shape: content type application/json is not among */*',
      'a response declared with a wildcard media type (read by the probe literally)',
    ],
  ])('%s: %s', (label, problem, limit) => {
    expect(probeLimit(problem, label)).toBe(limit);
  });
});
