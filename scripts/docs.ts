/**
 * npm run docs  (tsx scripts/docs.ts [--out <dir>] [--openapi <root document>] [--skip-redoc])
 *
 * Builds the static, offline documentation site in docs/site/ with the pipeline's `docs` target
 * (generators/src/emit/docs-site.ts):
 *   index.html        Redoc rendering of the BUNDLED OpenAPI document (openapi/openapi.yaml + openapi/redocly.yaml)
 *   openapi.json / openapi.js        the bundled document (download / loaded by index.html, works from file://)
 *   events.html       from the spec's `webhooks` and openapi/asyncapi.yaml (fields, formats, examples, planned events)
 *   errors.html, decisions.html      from docs/errors.md and docs/decisions.md (the catalogue is checked against the spec)
 *   changelog.html    the changes between the released contracts in openapi/released/ and the unreleased ones
 *                     (generators/src/diff/changelog.ts)
 * and copies redoc.standalone.js (+ LICENSE) from the installed `redoc` package next to them: no CDN.
 *
 * --openapi     another root document (its redocly.yaml and asyncapi.yaml beside it); default openapi/openapi.yaml
 * --skip-redoc  do not fail when the redoc package is not installed (the page will not render until it is)
 */
import { existsSync } from 'node:fs';
import { copyFile, mkdir, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { REDOC_SCRIPT } from '../generators/src/emit/docs-site.js';
import { buildChangelog } from '../generators/src/diff/changelog.js';
import { generate, readDocsSources } from '../generators/src/pipeline.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** The Redoc release whose standalone bundle is a single classic (UMD) script that works offline and from file://. */
const REDOC_PACKAGE = 'redoc@2.5.4';

const started = performance.now();
const step = (message: string) => console.log(`[docs] ${message}`);
const elapsed = () => `${Math.round(performance.now() - started)} ms`;

function parseArgs(argv: string[]) {
  const args = { out: path.join(ROOT, 'docs', 'site'), openapi: path.join(ROOT, 'openapi', 'openapi.yaml'), skipRedoc: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--skip-redoc') args.skipRedoc = true;
    else if (a === '--out' && argv[i + 1]) args.out = path.resolve(argv[++i]!);
    else if (a === '--openapi' && argv[i + 1]) args.openapi = path.resolve(argv[++i]!);
    else throw new Error(`unknown argument ${a}`);
  }
  return args;
}

function findRedocBundle(): string | undefined {
  try {
    return createRequire(import.meta.url).resolve('redoc/bundles/redoc.standalone.js');
  } catch {
    return undefined;
  }
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  step(`building the docs site into ${path.relative(ROOT, args.out) || '.'}`);
  const specDir = path.dirname(args.openapi);
  const asyncapi = path.join(specDir, 'asyncapi.yaml');
  const lintConfig = path.join(specDir, 'redocly.yaml');
  const releasedDir = path.join(specDir, 'released');
  const changelog = existsSync(releasedDir)
    ? await buildChangelog({ cwd: ROOT, spec: path.relative(ROOT, args.openapi), releasedDir: path.relative(ROOT, releasedDir), progress: step })
    : undefined;
  if (changelog === undefined) step(`no ${path.relative(ROOT, releasedDir)}: no changelog page (npm run release creates it)`);
  // Lint is `npm run lint:spec`'s job; the pipeline bundles and builds the model.
  const result = await generate({
    rootDir: ROOT,
    openapi: path.relative(ROOT, args.openapi),
    asyncapi: existsSync(asyncapi) ? path.relative(ROOT, asyncapi) : null,
    lintConfig: existsSync(lintConfig) ? path.relative(ROOT, lintConfig) : undefined,
    lint: 'skip',
    targets: ['docs'],
    out: { docs: 'site' },
    docs: { ...readDocsSources(ROOT), changelog },
  });
  step(`events from the spec: ${result.model.webhooks.map((e) => e.eventType).join(', ')}; planned: ${result.model.plannedEvents.map((e) => e.eventType).join(', ') || 'none'}`);

  const redoc = findRedocBundle();
  if (!redoc) {
    const message = `the redoc package is not installed: run \`npm install -D ${REDOC_PACKAGE}\` (its bundles/redoc.standalone.js is served locally)`;
    if (!args.skipRedoc) throw new Error(message);
    step(`warning: ${message}; index.html will not render until it is`);
  }

  // The output directory belongs to this script: start clean so removed pages do not linger.
  await rm(args.out, { recursive: true, force: true });
  await mkdir(args.out, { recursive: true });
  for (const file of result.files) {
    const relative = file.path.replace(/^site\//, '');
    await writeFile(path.join(args.out, relative), file.contents);
    step(`  wrote ${relative} (${Buffer.byteLength(file.contents)} bytes)`);
  }
  if (redoc) {
    await copyFile(redoc, path.join(args.out, REDOC_SCRIPT));
    step(`  copied ${REDOC_SCRIPT} from ${path.relative(ROOT, redoc)}`);
    const license = `${redoc}.LICENSE.txt`;
    if (existsSync(license)) await copyFile(license, path.join(args.out, `${REDOC_SCRIPT}.LICENSE.txt`));
  }
  step(`done in ${elapsed()}`);
}

main().catch((error: unknown) => {
  console.error(`[docs] failed after ${elapsed()}: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
