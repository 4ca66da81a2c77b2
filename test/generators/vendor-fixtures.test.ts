/**
 * Issue 30's minimal reproductions as vendor-style documents (test/fixtures/vendor30: OpenAPI 3.0, a CDN's style;
 * vendor31: 3.1, a chat platform's), each generated as `paygate generate` does by default (strict lint, every target),
 * compiled strictly through the one harness (support/compile-generated.ts), and documented by `paygate docs` in a
 * project with no error catalogue: `enum: []` and tuples compile (D198 tolerant schema compilation), `4xx` ranges are `4XX` in every type (D199 status range keys normalised), a
 * repeated path parameter is one parameter (D200 a repeated path parameter is one value), the title gives the names (D202 client name from x-client-name or the title), the errors page comes from the
 * spec (D203 error catalogue check only when given), `nullable` in a 3.1 schema only warns (D205 unknown 3.1 schema keywords are warnings).
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { command as docs } from '../../generators/src/cli/commands/docs.js';
import { runCommand } from '../../generators/src/cli/run-command.js';
import { ROOT } from './fixtures.js';
import { generateAndCompile, type CompileOutcome } from './support/compile-generated.js';

interface VendorFixture {
  name: string;
  openapi: string;
  operations: string[];
  factory: string;
  /** Path templates and the path parameters each operation takes, once each. */
  repeated: { path: string; params: string[] };
  docsTitle: string;
}

const FIXTURES: VendorFixture[] = [
  {
    name: 'vendor30',
    openapi: 'test/fixtures/vendor30/openapi.yaml',
    operations: ['listMaps', 'createMap', 'getSharedMap', 'unshareMap'],
    factory: 'createAcmeMapsClient',
    repeated: { path: '/accounts/{account_id}/maps/{map_id}/accounts/{account_id}', params: ['account_id', 'map_id'] },
    docsTitle: 'The Acme Maps API',
  },
  {
    name: 'vendor31',
    openapi: 'test/fixtures/vendor31/openapi.yaml',
    operations: ['listJoinRequests', 'actionJoinRequest', 'placeMember'],
    factory: 'createAcmeChatClient',
    repeated: { path: '/guilds/{guild_id}/members/{user_id}/guilds/{guild_id}', params: ['guild_id', 'user_id'] },
    docsTitle: 'The Acme Chat API (Preview)',
  },
];

const outcomes = new Map<string, Promise<CompileOutcome>>();
for (const fixture of FIXTURES) {
  const outcome = generateAndCompile({
    openapi: fixture.openapi,
    targets: ['contract', 'server', 'client', 'webhooks'],
    label: fixture.name,
    lint: 'strict',
  });
  outcome.catch(() => undefined);
  outcomes.set(fixture.name, outcome);
}

describe.each(FIXTURES)('$name, as `paygate generate` does by default', (fixture) => {
  it('generates every target under strict lint and compiles under the strict tsconfig', { timeout: 300_000 }, async () => {
    const outcome = await outcomes.get(fixture.name)!;
    expect(outcome.diagnostics).toBe('');
    expect(outcome.tscCode).toBe(0);
    expect(outcome.result.model.operations.map((o) => o.operationId).sort()).toEqual([...fixture.operations].sort());
    expect(outcome.result.lintProblems.filter((p) => p.severity === 'error')).toEqual([]);
    expect(outcome.result.warnings).toEqual([]);
  });

  it('types every status range as 4XX, in the type layer as in the handlers and the client (D199)', { timeout: 300_000 }, async () => {
    const { result } = await outcomes.get(fixture.name)!;
    const file = (suffix: string) => result.files.find((f) => f.path.endsWith(suffix))!.contents;
    expect(file('contract/types.gen.ts')).toContain('"4XX":');
    for (const suffix of ['contract/types.gen.ts', 'server/handlers.gen.ts', 'client/client.gen.ts', 'contract/api-document.gen.ts'])
      expect(file(suffix), suffix).not.toMatch(/"[45]xx"/);
    expect(result.model.operations.flatMap((o) => o.responses.map((r) => r.status))).not.toContain('4xx');
  });

  it('takes a repeated path parameter once in every emitter (D200)', { timeout: 300_000 }, async () => {
    const { result } = await outcomes.get(fixture.name)!;
    const ops = result.model.operations.filter((o) => o.path === fixture.repeated.path);
    expect(ops.length).toBeGreaterThan(0);
    for (const op of ops) {
      expect(op.parameters.path.map((p) => [p.name, p.declared])).toEqual(fixture.repeated.params.map((n) => [n, true]));
    }
    const handlers = result.files.find((f) => f.path.endsWith('server/handlers.gen.ts'))!.contents;
    const first = fixture.repeated.params[0]!;
    for (const block of handlers.split('export interface ').filter((b) => b.includes(`${first}: O`))) {
      expect(block.match(new RegExp(`\\b${first}:`, 'g'))?.length, block.split('\n')[0]).toBe(1);
    }
  });

  it("names the client after the title (D202), and `paygate docs` builds the errors page from the spec's own words (D203)", {
    timeout: 300_000,
  }, async () => {
    const { result } = await outcomes.get(fixture.name)!;
    expect(result.files.find((f) => f.path.endsWith('client/index.ts'))!.contents).toContain(`export { ${fixture.factory},`);
    const cwd = await mkdtemp(path.join(tmpdir(), `paygate-${fixture.name}-docs-`));
    try {
      let err = '';
      const code = await runCommand(docs, ['--input', path.join(ROOT, fixture.openapi), '--out', 'site', '--skip-redoc'], {
        cwd,
        stdout: () => undefined,
        stderr: (text) => void (err += text),
      });
      expect({ code, err: code === 0 ? '' : err }).toEqual({ code: 0, err: '' });
      const errors = await readFile(path.join(cwd, 'site/errors.html'), 'utf8');
      expect(errors).toContain(`<h1>Errors of ${fixture.docsTitle}</h1>`);
      expect(errors).toContain('<td><code>4XX</code></td>');
      expect(errors).not.toMatch(/error codes of The\b|The error codes of [A-Z][a-z]+:/);
      expect(await readFile(path.join(cwd, 'site/index.html'), 'utf8')).toContain(fixture.docsTitle);
    } finally {
      await rm(cwd, { recursive: true, force: true });
    }
  });
});

describe('the errors page without a catalogue (D203)', () => {
  let cwd: string;
  beforeAll(async () => {
    cwd = await mkdtemp(path.join(tmpdir(), 'paygate-vendor-errors-'));
  });
  afterAll(async () => {
    await rm(cwd, { recursive: true, force: true });
  });

  const build = async (argv: string[]) => {
    let err = '';
    const code = await runCommand(docs, ['--input', path.join(ROOT, 'test/fixtures/vendor30/openapi.yaml'), '--skip-redoc', ...argv], {
      cwd,
      stdout: () => undefined,
      stderr: (text) => void (err += text),
    });
    return { code, err };
  };

  it("lists each error response with its operations, the error schema's fields and the code enum, escaped", async () => {
    expect((await build(['--out', 'plain'])).code).toBe(0);
    const html = await readFile(path.join(cwd, 'plain/errors.html'), 'utf8');
    expect(html).toContain(
      '<tr><td><code>409</code></td><td>A map of that name exists</td><td><code>application/json</code>: Failure</td><td><code>createMap</code></td></tr>',
    );
    expect(html).toMatch(/<tr><td><code>4XX<\/code><\/td><td>The request failed<\/td>.*<code>listMaps<\/code>, <code>createMap<\/code>/);
    expect(html).toContain('<h3 id="schema-Failure"><code>Failure</code></h3>');
    expect(html).toContain('<p>Every failure of the API, with one or more errors.</p>');
    expect(html).toContain('<tr><td><code>errors</code></td><td>array of object</td><td>yes</td><td></td></tr>');
    for (const code of ['invalid_client', 'rate_limited', 'server_error'])
      expect(html).toContain(`<tr id="${code}"><td><code>${code}</code></td>`);
  });

  it('checks a catalogue only when the user gives one, and its refusal names both differences and the fix', async () => {
    const { writeFile } = await import('node:fs/promises');
    await writeFile(
      path.join(cwd, 'errors.md'),
      '| Code | HTTP | When | Details keys | What the client should do |\n|---|---|---|---|---|\n| invalid_client | 401 | Bad token | none | Fix it |\n| gone | 410 | Never | none | None |\n',
    );
    const { code, err } = await build(['--out', 'catalogued', '--errors', 'errors.md']);
    expect(code).toBe(1);
    expect(err).toContain(
      'error catalogue drift: the error catalogue and the spec name different error codes: only in the catalogue [gone]; only in the spec [conflict, invalid_request, not_found, rate_limited, server_error].',
    );
    expect(err).toMatch(/Fix: make the catalogue's table .* or build the docs without a catalogue/);
    expect(err).not.toMatch(/generator bug|\n\s+at /);
  });
});
