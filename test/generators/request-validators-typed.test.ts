/**
 * The request validators file is type-checked (D463, "Generated request validators are type-checked but for the Ajv
 * string"): no `@ts-nocheck`; the Ajv code is the one untyped string, typed where it becomes functions, and the
 * table after it is checked by a strict tsc like any code. Shown on a spec of another shape (the `shelf` fixture:
 * bearer auth, its own error body) and on a spec with no request validator at all (the empty table).
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compileProject, generateProject } from './support/compile-generated.js';

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

async function project(label: string, openapi: string): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), `paygate-${label}-`));
  dirs.push(dir);
  await generateProject({ openapi, asyncapi: null, targets: ['contract', 'server'], label, dir });
  return dir;
}

const VALIDATORS = 'generated/server/request-validators.gen.ts';

describe('generated request validators under a strict tsc (D463)', () => {
  it('carry no @ts-nocheck, compile, and a wrong value in the table is a type error', { timeout: 240_000 }, async () => {
    const dir = await project('typed-validators', 'test/fixtures/shelf/openapi.yaml');
    const file = path.join(dir, VALIDATORS);
    const text = await readFile(file, 'utf8');
    expect(text).not.toContain('@ts-nocheck');
    expect(text).toMatch(/^const compiled: Readonly<Record<\n {2}\| 'validate/m);
    const clean = await compileProject(dir, ['generated']);
    expect(clean.diagnostics).toBe('');
    expect(clean.tscCode).toBe(0);

    // a parse rule the runtime does not know: under @ts-nocheck this compiled
    expect(text).toContain('"parse":"none"');
    await writeFile(file, text.replace('"parse":"none"', '"parse":"nonsense"'));
    const broken = await compileProject(dir, ['generated']);
    expect(broken.tscCode).not.toBe(0);
    expect(broken.diagnostics).toMatch(/request-validators\.gen\.ts\(\d+,\d+\): error TS2322: Type '"nonsense"' is not assignable/);
  });

  it('a spec with no request validator compiles strictly (the empty table)', { timeout: 240_000 }, async () => {
    const specDir = await mkdtemp(path.join(tmpdir(), 'paygate-no-validators-spec-'));
    dirs.push(specDir);
    const spec = path.join(specDir, 'openapi.json');
    await writeFile(
      spec,
      JSON.stringify({
        openapi: '3.1.0',
        info: { title: 'Ping', version: '1.0.0' },
        paths: { '/ping': { get: { operationId: 'ping', responses: { '204': { description: 'Alive' } } } } },
      }),
    );
    const dir = await project('no-validators', spec);
    const text = await readFile(path.join(dir, VALIDATORS), 'utf8');
    expect(text).toContain('Readonly<Record<never,');
    const outcome = await compileProject(dir, ['generated']);
    expect(outcome.diagnostics).toBe('');
    expect(outcome.tscCode).toBe(0);
  });
});
