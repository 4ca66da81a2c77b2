/**
 * Generic proof: the generators handle GitHub's REST spec (OpenAPI 3.0.3, 1,223 operations). Generates the contract
 * (type layer, route table, enums), the server scaffold and the client into a temp dir the way `paygate generate
 * --out` does for a project of its own (runtimes imported by package name, the contract by relative path) and
 * type-checks the result with `tsc --noEmit` under the repo's strict base tsconfig, the runtimes resolved through
 * the workspace packages' export maps.
 * Slow (~1-2 min).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { writeFiles } from '../../generators/src/cli/generate.js';
import { generate } from '../../generators/src/pipeline.js';
import { ROOT } from './fixtures.js';

const run = promisify(execFile);
const GITHUB_SPEC = 'node_modules/@octokit/openapi/generated/api.github.com.json';
let dir: string | undefined;

afterAll(async () => {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

describe("GitHub's REST spec", () => {
  it('generates server + client + types that compile under the strict tsconfig', { timeout: 240_000 }, async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'paygate-github-'));
    // The contract is imported by relative path ('@paygate/contract' is this repo's own contract), the runtimes by
    // package name through their `./runtime/*.js` and `./types.js` exports.
    const result = await generate({
      rootDir: ROOT,
      openapi: GITHUB_SPEC,
      asyncapi: null,
      lint: 'skip',
      targets: ['contract', 'server', 'client'],
      out: { contract: 'generated/contract', server: 'generated/server', client: 'generated/client' },
      contractImport: 'relative',
      runtimeImport: 'package',
    });
    expect(result.model.operations).toHaveLength(1223);
    const ids = new Set(result.model.operations.map((o) => o.operationId));
    expect(ids.size).toBe(1223);
    await writeFiles(dir, result.files);
    await symlink(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
    await writeFile(path.join(dir, 'package.json'), JSON.stringify({ name: 'github-proof', private: true, type: 'module' }));
    await writeFile(
      path.join(dir, 'tsconfig.json'),
      JSON.stringify({
        extends: path.join(ROOT, 'tsconfig.base.json'),
        // The workspace packages' TypeScript (their "source" export condition): no build needed.
        compilerOptions: { noEmit: true, types: ['node'], skipLibCheck: true, customConditions: ['source'] },
        include: ['generated'],
        exclude: ['**/*.test.ts'],
      }),
    );
    const tsc = path.join(ROOT, 'node_modules/typescript/bin/tsc');
    const started = performance.now();
    const outcome = await run(process.execPath, ['--max-old-space-size=8192', tsc, '-p', path.join(dir, 'tsconfig.json')], { maxBuffer: 64 * 1024 * 1024 }).then(
      () => ({ code: 0, output: '' }),
      (error: { code?: number; stdout?: string; stderr?: string }) => ({ code: error.code ?? 1, output: `${error.stdout ?? ''}${error.stderr ?? ''}` }),
    );
    console.log(`tsc --noEmit on GitHub output: ${((performance.now() - started) / 1000).toFixed(1)} s`);
    expect(outcome.output.split('\n').slice(0, 30).join('\n')).toBe('');
    expect(outcome.code).toBe(0);
  });
});
