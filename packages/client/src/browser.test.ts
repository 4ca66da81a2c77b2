/**
 * @paygate/client in a browser bundle: esbuild (platform browser, the package's `browser` export condition) bundles
 * the client a web page would import. A Node built-in anywhere on that path would fail the bundle (esbuild cannot
 * resolve `node:*` for the browser) or show up in its inputs; the callback verification (node:crypto) must stay out.
 */
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';
import { builtinModules } from 'node:module';
import { describe, expect, it } from 'vitest';

const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url));
const NODE_BUILTINS = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));

describe('@paygate/client for the browser', () => {
  it('bundles with no Node built-in and without the Node-only callback verification', async () => {
    const result = await build({
      stdin: {
        contents: `import { createPaygateClient, paginate } from '@paygate/client';\nexport const client = createPaygateClient({ baseUrl: 'https://sandbox.example.com', clientId: 'pk', clientSecret: 'ps' });\nexport { paginate };`,
        resolveDir: PACKAGE_DIR,
        loader: 'ts',
      },
      bundle: true,
      platform: 'browser',
      format: 'esm',
      // In this repository the packages resolve to their sources (the published files resolve to dist/browser.js).
      conditions: ['source'],
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    const inputs = Object.keys(result.metafile.inputs);
    const imports = Object.values(result.metafile.inputs).flatMap((input) => input.imports.map((i) => i.path));
    expect(inputs).toEqual(
      expect.arrayContaining([expect.stringMatching(/client\/src\/browser\.ts$/), expect.stringMatching(/runtime\/transport\.ts$/)]),
    );
    expect(inputs.filter((input) => /callback|client\/src\/index\.ts$/.test(input))).toEqual([]);
    expect(imports.filter((specifier) => NODE_BUILTINS.has(specifier))).toEqual([]);
    const bundle = result.outputFiles[0]!.text;
    expect(bundle).not.toMatch(/from\s*["']node:|require\(["'](node:)?(crypto|fs|path|http|https|buffer|stream)["']\)/);
    expect(bundle).toContain('createPaygateClient');
  });
});
