// D189: `paygate serve` runs one bundle of the gateway (packages/reference/dist/serve/), built after `tsc -b` from the
// compiled cli.js by esbuild, with code splitting (the lazily loaded parts stay separate chunks). One bundle instead of
// ~330 module files: Node's module loading (resolution, package.json reads, CommonJS through the ESM loader) was most
// of a cold start (D188 serve bundle experiment measured first). Kept files of their own: PGlite and pg (WebAssembly, data files, the optional native module),
// and whatever the code loads by createRequire (fast-json-stringify, multer, ioredis, the rate limiter's stores,
// express-openapi-validator, Ajv's runtime for the generated validators): still lazy, still visible to a loader hook.
// `import.meta.url` of a bundled file is rewritten to its original file's URL, relative to the bundle (migrations, the
// docs site, createRequire and the --workers fork resolve as in the module build). The output is deterministic (no
// timestamps; chunk names are content hashes) and is rebuilt from scratch each time.
import { createHash } from 'node:crypto';
import { readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DIST = path.join(ROOT, 'packages/reference/dist');
/** `node scripts/bundle-serve.mjs [out dir]`: packages/reference/dist/serve unless told (the determinism test). */
const SERVE_BUNDLE_DIR = path.resolve(process.argv[2] ?? path.join(DIST, 'serve'));
/**
 * Packages that stay files of node_modules: PGlite and pg (their own files next to their code), and the two a running
 * gateway imports after its start (qrcode: the first UPI QR code; request-filtering-agent: the first webhook delivery,
 * D187), so that a running gateway never loads a chunk of the bundle after listening: rebuilding the bundle under it
 * (new content-hashed chunk names) cannot take away a chunk it still needs.
 */
const EXTERNAL = /^(@electric-sql\/pglite|pg|pg-native|qrcode|request-filtering-agent)(\/|$)/;

/**
 * A digest of what a bundle is made of: this script, esbuild's version and every input file's path and content.
 * `npm start` builds before each start: with the digest of the inputs the last bundle listed unchanged (and its outputs
 * there), nothing is bundled again (content, not mtimes: npm installs packages with one fixed mtime).
 */
async function inputsDigest(/** @type {string[]} */ inputs) {
  const hash = createHash('sha256');
  hash.update(await readFile(fileURLToPath(import.meta.url)));
  hash.update(`esbuild ${JSON.parse(await readFile(createRequire(import.meta.url).resolve('esbuild/package.json'), 'utf8')).version}\n`);
  for (const input of [...inputs].sort()) hash.update(`${input}\n`).update(await readFile(path.join(ROOT, input)));
  return hash.digest('hex');
}
const DIGEST_FILE = path.join(SERVE_BUNDLE_DIR, 'inputs.sha256');
const upToDate = await (async () => {
  try {
    const previous = JSON.parse(await readFile(path.join(SERVE_BUNDLE_DIR, 'bundle.json'), 'utf8'));
    await Promise.all(Object.keys(previous).map((file) => stat(path.join(SERVE_BUNDLE_DIR, file))));
    const inputs = Object.values(previous).flatMap((/** @type {{ inputs: string[] }} */ o) => o.inputs);
    return (await readFile(DIGEST_FILE, 'utf8')).trim() === (await inputsDigest(inputs));
  } catch {
    return false; // no bundle yet, an output or an input gone: bundle
  }
})();
if (upToDate) process.exit(0);

await rm(SERVE_BUNDLE_DIR, { recursive: true, force: true });
const { build } = await import('esbuild');
const result = await build({
  entryPoints: [path.join(DIST, 'cli.js')],
  outdir: SERVE_BUNDLE_DIR,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  metafile: true,
  legalComments: 'eof',
  logLevel: 'warning',
  // bundled CommonJS calls `require` for Node's built-ins (and Express's view engines, by name)
  banner: { js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);" },
  plugins: [
    {
      name: 'paygate-serve',
      setup(b) {
        b.onResolve({ filter: /.*/ }, (args) =>
          args.kind !== 'entry-point' && (args.path.startsWith('node:') || EXTERNAL.test(args.path)) ? { external: true } : undefined,
        );
        b.onLoad({ filter: /\.(js|mjs)$/ }, async (args) => {
          const text = await readFile(args.path, 'utf8');
          if (!text.includes('import.meta.url')) return undefined;
          const from = JSON.stringify(path.relative(SERVE_BUNDLE_DIR, args.path).split(path.sep).join('/'));
          return { contents: text.replaceAll('import.meta.url', `new URL(${from}, import.meta.url).href`), loader: 'js' };
        });
      },
    },
  ],
});
// which input files each output holds, by path relative to the repository: startup.test.ts reads it (D189 esbuild bundle of paygate serve)
const outputs = Object.fromEntries(
  Object.entries(result.metafile.outputs)
    .map(([file, out]) => [path.relative(SERVE_BUNDLE_DIR, path.resolve(ROOT, file)), { inputs: Object.keys(out.inputs).sort() }])
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
);
await writeFile(path.join(SERVE_BUNDLE_DIR, 'bundle.json'), `${JSON.stringify(outputs, null, 1)}\n`);
await writeFile(DIGEST_FILE, `${await inputsDigest(Object.values(outputs).flatMap((o) => o.inputs))}\n`);
