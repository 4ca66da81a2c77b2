// @ts-check
/**
 * The bundling experiment of D188 (issue 23), reproducible: bundles the BUILT `paygate serve` (run `npm run build`
 * first) with esbuild into packages/reference/dist/bundle-experiment/ and prints the entry to time against the module
 * build with bench/tools/coldstart-stages.mjs --entry. Nothing ships or runs this bundle: it measures what one bundle
 * would save (D188 says why it is not the build yet). The folder is under dist/ (bare imports resolve from
 * @paygate/reference's node_modules, as the gateway's do): delete it (`rm -r packages/reference/dist/bundle-experiment`)
 * before packing the package.
 *
 *   node bench/tools/serve-bundle-experiment.mjs [all|paygate|reference]
 *     all        everything but PGlite and pg (their WebAssembly, data files and optional native module stay as files)
 *     paygate    the @paygate packages only (every other package stays a file of node_modules)
 *     reference  @paygate/reference's own files only
 *
 * `import.meta.url` in a bundled file is rewritten to the URL of the file it came from (relative to the bundle, so the
 * migrations, the docs site and createRequire resolve as they did), and `require` is defined for bundled CommonJS.
 * What the experiment does not fix: bundled CommonJS reading `__dirname` or requiring a computed path fails when that
 * path runs (not on the way to the first answer; see D188).
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DIST = path.join(ROOT, 'packages/reference/dist');
const OUT = path.join(DIST, 'bundle-experiment');
const mode = process.argv[2] ?? 'all';
if (!['all', 'paygate', 'reference'].includes(mode)) throw new Error(`unknown mode ${mode}: all, paygate or reference`);

/** Whether a resolved import stays a file of its own (external) in this mode. */
const external = (/** @type {string} */ spec, /** @type {string} */ importer) => {
  if (spec.startsWith('node:')) return true;
  if (mode === 'all') return /^(@electric-sql\/pglite|pg|pg-native)(\/|$)/.test(spec);
  if (spec.startsWith('.')) return mode === 'reference' ? !importer.startsWith(`${DIST}/`) : /\/node_modules\//.test(importer);
  return mode === 'reference' || !spec.startsWith('@paygate/');
};

await rm(OUT, { recursive: true, force: true });
await build({
  entryPoints: [path.join(DIST, 'cli.js')],
  outdir: OUT,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  logLevel: 'warning',
  banner: { js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);" },
  plugins: [
    {
      name: 'paygate-serve-experiment',
      setup(b) {
        b.onResolve({ filter: /.*/ }, (args) =>
          args.kind !== 'entry-point' && external(args.path, args.importer) ? { external: true } : undefined,
        );
        b.onLoad({ filter: /\.(js|mjs)$/ }, async (args) => {
          const text = await readFile(args.path, 'utf8');
          if (!text.includes('import.meta.url')) return undefined;
          const from = JSON.stringify(path.relative(OUT, args.path));
          return { contents: text.replaceAll('import.meta.url', `new URL(${from}, import.meta.url).href`), loader: 'js' };
        });
      },
    },
  ],
});
const entry = path.join(OUT, 'entry.mjs');
await writeFile(
  entry,
  "import { main } from './cli.js';\nmain(process.argv.slice(2)).then((code) => { if (code !== undefined) process.exitCode = code; });\n",
);
console.log(`bundled (${mode}): node bench/tools/coldstart-stages.mjs --entry ${path.relative(ROOT, entry)} --pglite <dir> <order id> ...`);
