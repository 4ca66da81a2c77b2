/** Lint output a person can read (D373 lint warnings grouped per rule): one entry per rule with its count and first three locations; details on request. */
import { describe, expect, it } from 'vitest';
import { formatLintSummary, summarizeLint } from './lint-summary.js';
import type { LintProblem } from './openapi.js';

const problem = (ruleId: string, location: string, message = `${ruleId} says no`): LintProblem => ({
  severity: 'warn',
  ruleId,
  message,
  location,
  suggest: [],
});

const many = [
  ...Array.from({ length: 5 }, (_, i) => problem('operation-4xx-response', `api.yaml:${10 + i}:5`)),
  problem('no-server-example.com', 'api.yaml:3:10'),
  problem('security-defined', 'api.yaml:20:5'),
  problem('security-defined', 'api.yaml:30:5'),
];

describe('summarizeLint', () => {
  it('counts each rule, keeps its first three locations in order, most frequent first', () => {
    expect(summarizeLint(many)).toEqual([
      {
        ruleId: 'operation-4xx-response',
        severity: 'warn',
        count: 5,
        message: 'operation-4xx-response says no',
        locations: ['api.yaml:10:5', 'api.yaml:11:5', 'api.yaml:12:5'],
      },
      {
        ruleId: 'security-defined',
        severity: 'warn',
        count: 2,
        message: 'security-defined says no',
        locations: ['api.yaml:20:5', 'api.yaml:30:5'],
      },
      {
        ruleId: 'no-server-example.com',
        severity: 'warn',
        count: 1,
        message: 'no-server-example.com says no',
        locations: ['api.yaml:3:10'],
      },
    ]);
  });
});

describe('formatLintSummary', () => {
  it('prints two lines per rule, naming how many more locations there are', () => {
    expect(formatLintSummary(many, { details: false })).toEqual([
      '8 lint warning(s) from 3 rule(s) (--lint-details lists every one):',
      '  operation-4xx-response (5): operation-4xx-response says no',
      '    at api.yaml:10:5, api.yaml:11:5, api.yaml:12:5 and 2 more',
      '  security-defined (2): security-defined says no',
      '    at api.yaml:20:5, api.yaml:30:5',
      '  no-server-example.com (1): no-server-example.com says no',
      '    at api.yaml:3:10',
    ]);
  });

  it('with details, every problem on its own line', () => {
    const lines = formatLintSummary(many, { details: true });
    expect(lines).toHaveLength(many.length + 1);
    expect(lines[1]).toBe('  api.yaml:10:5: warn [operation-4xx-response] operation-4xx-response says no');
  });

  it('stays short on thousands of warnings (a line count bounded by the rules, not the problems)', () => {
    const flood = Array.from({ length: 2911 }, (_, i) => problem(`rule-${i % 7}`, `api.yaml:${i}:1`));
    expect(formatLintSummary(flood, { details: false })).toHaveLength(1 + 7 * 2);
  });

  it('prints nothing without problems', () => {
    expect(formatLintSummary([], { details: false })).toEqual([]);
  });
});
