/**
 * What a run prints and writes as it goes (D277 contract checker progress and summary): plain text when not a terminal (and with NO_COLOR), a line per
 * operation, and a JUnit file that is valid after every operation (a run killed between two is still readable).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CheckCase, CheckEvent } from './types.js';
import { JUnitWriter } from './junit.js';
import { operationLine, paletteFor } from './reporter.js';

const event = (operationId: string, failed: boolean): CheckEvent => ({
  type: 'operation',
  operationId,
  method: 'GET',
  path: `/${operationId}`,
  outcome: failed ? 'failed' : 'passed',
  note: undefined,
  credentialSet: 'partner',
  durationMs: 12,
  cases: [
    {
      operationId,
      check: 'positive',
      request: `GET /${operationId} & <more>`,
      status: failed ? 500 : 200,
      durationMs: 12,
      failures: failed
        ? [
            {
              check: 'not_a_server_error',
              operationId,
              status: 500,
              pointer: '#/paths/x',
              message: 'server error 500 "\u0001"',
              request: 'GET',
            },
          ]
        : [],
    } satisfies CheckCase,
  ],
});

/** Well-formed enough for a CI parser: the declaration, balanced suites and cases, nothing unescaped in attributes. */
function wellFormed(xml: string): boolean {
  const count = (re: RegExp) => xml.match(re)?.length ?? 0;
  return (
    xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites ') &&
    xml.trimEnd().endsWith('</testsuites>') &&
    count(/<testcase /g) === count(/<testcase [^>]*\/>/g) + count(/<\/testcase>/g) &&
    count(/<testsuite /g) === count(/<\/testsuite>/g) &&
    [...xml.matchAll(/="([^"]*)"/g)].every(([, value]) => !/<|&(?!amp;|lt;|gt;|quot;)/.test(value!)) &&
    ![...xml].some((c) => c.charCodeAt(0) < 9)
  );
}

describe('reporter and JUnit as the run goes (D277)', () => {
  it.each([
    ['a pipe', { isTTY: false }, {}, false],
    ['a terminal', { isTTY: true }, {}, true],
    ['a terminal with NO_COLOR', { isTTY: true }, { NO_COLOR: '1' }, false],
    ['a pipe with FORCE_COLOR', { isTTY: false }, { FORCE_COLOR: '1' }, true],
  ] as const)('colour on %s: %s', (_name, stream, env, coloured) => {
    const line = operationLine(event('getThing', true), paletteFor(stream, env));
    expect(line.includes('\u001b[')).toBe(coloured);
    expect(line).toMatch(/FAIL.*getThing.*GET \/getThing.*1 requests.*statuses 500.*as partner.*failed: not_a_server_error/);
  });

  it('the JUnit file is valid after every operation, and at the start', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'junit-'));
    try {
      const file = path.join(dir, 'reports/contract.xml');
      const writer = new JUnitWriter(file);
      expect(wellFormed(readFileSync(file, 'utf8'))).toBe(true);
      for (const [i, id] of ['createThing', 'getThing', 'deleteThing'].entries()) {
        writer.operation(id, event(id, i === 1).cases);
        const xml = readFileSync(file, 'utf8');
        expect(wellFormed(xml), JSON.stringify(xml)).toBe(true);
        expect(xml.match(/<testsuite /g)?.length).toBe(i + 1);
      }
      expect(readFileSync(file, 'utf8')).toMatch(/tests="3" failures="1"/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
