/**
 * The serve bundle (D189, scripts/bundle-serve.mjs) is a deterministic build step: built twice from the same dist/ it
 * is byte-identical, file for file; it is not built again while its inputs' content is unchanged; and `paygate serve` imports it (the bin's serve command through
 * `@paygate/reference/serve`). That it serves, lazily, is packages/reference/src/startup.test.ts.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { buildOnce } from '../support/build.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);

async function digest(dir: string): Promise<Record<string, string>> {
  const files = (await readdir(dir)).sort();
  return Object.fromEntries(
    await Promise.all(
      files.map(
        async (f) =>
          [
            f,
            createHash('sha256')
              .update(await readFile(path.join(dir, f)))
              .digest('hex'),
          ] as const,
      ),
    ),
  );
}

describe('the serve bundle (D189)', () => {
  let dir: string | undefined;
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('is byte-identical when built twice, and holds the gateway entry and its metafile', { timeout: 300_000 }, async () => {
    await buildOnce();
    dir = await mkdtemp(path.join(tmpdir(), 'paygate-serve-bundle-'));
    const out = path.join(dir, 'serve');
    await run(process.execPath, ['scripts/bundle-serve.mjs', out], { cwd: ROOT });
    const first = await digest(out);
    // without its inputs' digest the next run bundles again, from scratch
    await rm(path.join(out, 'inputs.sha256'));
    await run(process.execPath, ['scripts/bundle-serve.mjs', out], { cwd: ROOT });
    expect(await digest(out)).toEqual(first);
    // with it, and the inputs unchanged, the next run (npm start builds before every start) writes nothing
    const written = (await stat(path.join(out, 'cli.js'))).mtimeMs;
    await run(process.execPath, ['scripts/bundle-serve.mjs', out], { cwd: ROOT });
    expect((await stat(path.join(out, 'cli.js'))).mtimeMs).toBe(written);
    expect(Object.keys(first)).toEqual(expect.arrayContaining(['cli.js', 'bundle.json', 'inputs.sha256']));
    const chunks = JSON.parse(await readFile(path.join(out, 'bundle.json'), 'utf8')) as Record<string, { inputs: string[] }>;
    expect(chunks['cli.js']).toBeDefined();
    // PGlite and pg stay files of node_modules; the gateway's own modules are inside
    const inputs = Object.values(chunks).flatMap((c) => c.inputs);
    expect(inputs.filter((i) => /node_modules\/(@electric-sql\/pglite|pg)\//.test(i))).toEqual([]);
    expect(inputs).toContain('packages/reference/dist/app.js');
  });

  it('is what the serve command imports', async () => {
    const source = await readFile(path.join(ROOT, 'generators/src/cli/commands/serve.ts'), 'utf8');
    expect(source).toContain("import('@paygate/reference/serve')");
    const pkg = JSON.parse(await readFile(path.join(ROOT, 'packages/reference/package.json'), 'utf8')) as {
      exports: Record<string, { default: string }>;
    };
    expect(pkg.exports['./serve']?.default).toBe('./dist/serve/cli.js');
  });
});
