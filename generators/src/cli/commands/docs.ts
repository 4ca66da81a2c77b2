/**
 * `paygate docs`: the static, offline reference site built by the pipeline's `docs` target
 * (generators/src/emit/docs-site.ts):
 *   index.html        Redoc rendering of the bundled OpenAPI document
 *   openapi.json / openapi.js        the bundled document (download / loaded by index.html, works from file://)
 *   events.html       from the spec's `webhooks` and the AsyncAPI document (fields, formats, examples, planned events)
 *   errors.html       the error catalogue the user gives (--errors, default docs/errors.md), checked against the spec's
 *                     codes; without one, the spec's own error responses, error schemas and codes (D203 error catalogue check only when given)
 *   decisions.html    from the decision records of a folder (D450 one file per decision and a generated index) or a decisions markdown table (no page when absent)
 *   changelog.html    the changes between the released contracts (`paygate release`, the `released/` folder beside the
 *                     spec) and the unreleased ones (generators/src/diff/changelog.ts); no page without releases
 *   operation-<id>.html, operations.html, schemas.html   the pre-rendered light reference with samples (D385 docs samples from the spec; D388 light reference pages without Redoc)
 *   diagrams.html     state machines and the delivery timeline, when the spec declares them (D390 diagrams drawn at build time)
 *   search-index.js + minisearch.js, site.js, try-it.js   search, copy buttons, the sandbox console (D389 one offline search built with the site; D391 try-it only on a sandbox)
 * plus redoc.standalone.js (+ LICENSE) from the installed `redoc` package, its one CDN image named locally (D136 Redoc bundle's CDN logo replaced locally): no CDN.
 */
import { existsSync, readFileSync } from 'node:fs';
import { copyFile, mkdir, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { readDecisionsSource } from '../../emit/decision-records.js';
import {
  DECISION_TABLE_HEADER,
  ERROR_TABLE_HEADER,
  readDocsTemplates,
  REDOC_CDN_LOGO,
  REDOC_SCRIPT,
  withLocalRedocLogo,
} from '../../emit/docs-site.js';
import { buildChangelog } from '../../diff/changelog.js';
import { readAllowFile } from '../../diff/gate.js';
import { ALLOW_FILE } from '../../diff/released.js';
import { DEFAULT_TEMPLATES_DIR } from '../../emit/templates.js';
import { EnvironmentError, EXIT, type CliCommand } from '../command.js';
import { loadConfig } from '../config.js';
import { runPipelineOrReport } from './run-pipeline.js';
import { parseFlags } from './spec-options.js';

/** The Redoc release whose standalone bundle is a single classic (UMD) script that works offline and from file://. */
const REDOC_PACKAGE = 'redoc@2.5.4';

const FLAGS = {
  input: { type: 'string' },
  asyncapi: { type: 'string' },
  out: { type: 'string' },
  errors: { type: 'string' },
  decisions: { type: 'string' },
  released: { type: 'string' },
  'skip-redoc': { type: 'boolean' },
  config: { type: 'string' },
} as const;

function findRedocBundle(): string | undefined {
  try {
    return createRequire(import.meta.url).resolve('redoc/bundles/redoc.standalone.js');
  } catch {
    return undefined;
  }
}

/** A markdown table with only its header: the page renders, empty (a project without a catalogue). */
const emptyTable = (header: readonly string[]) => `| ${header.join(' | ')} |\n| ${header.map(() => '---').join(' | ')} |\n`;

/** The markdown `given` by its flag, else `fallback` when it exists, else undefined. */
function readGivenMarkdown(cwd: string, flag: string, given: string | undefined, fallback: string): string | undefined {
  const file = path.resolve(cwd, given ?? fallback);
  if (existsSync(file)) return readFileSync(file, 'utf8');
  if (given !== undefined)
    throw new EnvironmentError(`${flag} ${file} does not exist: pass an existing markdown file or leave ${flag} out.`);
  return undefined;
}

/** The decisions `--decisions` names (a folder of records or a markdown table), else the default's, else none. */
function readGivenDecisions(cwd: string, given: string | undefined) {
  const found = readDecisionsSource(cwd, given);
  if (found === undefined && given !== undefined)
    throw new EnvironmentError(
      `--decisions ${path.resolve(cwd, given)} does not exist: pass a folder of decision records or a markdown file, or leave --decisions out.`,
    );
  return found ?? { decisionsMarkdown: emptyTable(DECISION_TABLE_HEADER) };
}

export const command: CliCommand = {
  name: 'docs',
  summary: 'build the static API reference site (Redoc, events, error codes, decisions; works offline)',
  usage: `Usage: paygate docs [--input FILE] [--asyncapi FILE|none] [--out DIR] [--errors FILE] [--decisions PATH] [--released DIR] [--skip-redoc]

Builds the offline reference site into DIR (default docs/site; the directory is replaced):
  index.html (Redoc), openapi.json, events.html, errors.html, decisions.html, redoc.standalone.js,
  changelog.html (when released contracts exist: \`paygate release\`), one page per operation with curl and
  TypeScript samples (operations.html lists them), schemas.html, diagrams.html (x-state-machine,
  x-webhook-retry-schedule), a search box on every page (an offline index)

Flags:
  --input FILE          the OpenAPI 3.0/3.1 root document (default openapi/openapi.yaml)
  --asyncapi FILE|none  AsyncAPI 3.0 events (default asyncapi.yaml beside --input, when it exists)
  --out DIR             where the site goes (default docs/site)
  --errors FILE         error catalogue markdown, one table: ${ERROR_TABLE_HEADER.join(' | ')} (default docs/errors.md when
                        present); its codes must be the spec's. Without one, errors.html lists the spec's own error
                        responses, error schemas and codes
  --decisions PATH      a folder of decision records (one <id>-<slug>.md each: "# <id>: <title>", then ## Context,
                        ## Decision, ## Why, ## Where), or a markdown file of tables: ${DECISION_TABLE_HEADER.join(' | ')}
                        (default docs/decisions/ when present, else docs/decisions.md)
  --released DIR        released contracts for the changelog page (default released/ beside --input, when it exists)
  --skip-redoc          build even when the redoc package is not installed (index.html renders once it is)
  --config FILE         the config file (default paygate.config.* or package.json's "paygate" key): its input,
                        asyncapi and docs.out are the defaults of --input, --asyncapi and --out

Exit codes: 0 built, 1 the spec or a markdown source has errors, 2 bad flags, 3 a file or the redoc package is missing.

Example:
  npm install -D ${REDOC_PACKAGE} && npx paygate docs --input openapi.yaml --out site`,
  async run(argv, io) {
    const flags = parseFlags(argv, FLAGS);
    const cwd = io.cwd;
    // D372: the config's settings, a flag overriding each
    const { config, source } = await loadConfig(cwd, flags.config);
    if (source !== undefined) io.stderr(`Config: ${source}\n`);
    const input = flags.input ?? config.input ?? 'openapi/openapi.yaml';
    if (!existsSync(path.resolve(cwd, input)))
      throw new EnvironmentError(`The OpenAPI document ${path.resolve(cwd, input)} does not exist. Pass it with --input FILE.`);
    const besideInput = path.join(path.dirname(input), 'asyncapi.yaml');
    const asyncapi =
      flags.asyncapi === 'none'
        ? null
        : (flags.asyncapi ??
          (config.asyncapi !== undefined ? config.asyncapi : existsSync(path.resolve(cwd, besideInput)) ? besideInput : null));
    const out = path.resolve(cwd, flags.out ?? config.docs?.out ?? 'docs/site');
    const redoc = findRedocBundle();
    if (redoc === undefined && flags['skip-redoc'] !== true) {
      throw new EnvironmentError(
        `The redoc package is not installed: run \`npm install -D ${REDOC_PACKAGE}\` (its bundles/redoc.standalone.js is served locally), or pass --skip-redoc.`,
      );
    }
    const releasedDir = flags.released ?? path.join(path.dirname(input), 'released');
    if (flags.released !== undefined && !existsSync(path.resolve(cwd, releasedDir))) {
      throw new EnvironmentError(
        `--released ${path.resolve(cwd, releasedDir)} does not exist: pass the folder \`paygate release\` writes, or leave --released out.`,
      );
    }
    const progress = (line: string) => io.stderr(`  ${line}\n`);
    const changelog = existsSync(path.resolve(cwd, releasedDir))
      ? await buildChangelog({ cwd, spec: input, releasedDir, progress })
      : undefined;
    if (changelog === undefined) io.stderr(`  no ${releasedDir}: no changelog page (paygate release creates it)\n`);
    // the gate's allow file: the unreleased breaking changes that were reviewed, each with its reason (shown on the page)
    const allowed = changelog === undefined ? undefined : await readAllowFile(path.resolve(cwd, releasedDir, ALLOW_FILE));
    const docs = {
      changelog,
      changelogReviewed: allowed?.entries,
      // D203: a catalogue only when the user gives one; without it errors.html comes from the spec's error responses
      errorsMarkdown: readGivenMarkdown(cwd, '--errors', flags.errors, 'docs/errors.md'),
      ...readGivenDecisions(cwd, flags.decisions),
      templates: readDocsTemplates(DEFAULT_TEMPLATES_DIR),
    };
    io.stderr(`Building the docs site into ${out}\n`);
    // Lint is `paygate generate`'s (and this repo's `npm run lint:spec`) job; the site only needs the bundle.
    const result = await runPipelineOrReport(
      { rootDir: cwd, openapi: input, asyncapi, lint: 'skip', targets: ['docs'], out: { docs: 'site' }, docs },
      io,
    );
    if (result === undefined) return EXIT.failed;
    io.stderr(
      `  events: ${result.model.webhooks.map((e) => e.eventType).join(', ') || 'none'}; planned: ${result.model.plannedEvents.map((e) => e.eventType).join(', ') || 'none'}\n`,
    );
    // The output directory belongs to this command: start clean so removed pages do not linger.
    await rm(out, { recursive: true, force: true });
    await mkdir(out, { recursive: true });
    for (const file of result.files) {
      const relative = file.path.replace(/^site\//, '');
      await writeFile(path.join(out, relative), file.contents);
      io.stdout(`wrote ${path.join(out, relative)} (${Buffer.byteLength(file.contents)} bytes)\n`);
    }
    if (redoc !== undefined) {
      const { text, replaced } = withLocalRedocLogo(readFileSync(redoc, 'utf8'));
      if (replaced === 0)
        io.stderr(`warning: ${redoc} no longer names ${REDOC_CDN_LOGO}: check the reference page for requests to a CDN\n`);
      await writeFile(path.join(out, REDOC_SCRIPT), text);
      const license = `${redoc}.LICENSE.txt`;
      if (existsSync(license)) await copyFile(license, path.join(out, `${REDOC_SCRIPT}.LICENSE.txt`));
      io.stdout(`wrote ${path.join(out, REDOC_SCRIPT)} (from ${redoc})\n`);
    } else {
      io.stderr(
        `warning: redoc is not installed; index.html will not render until ${REDOC_SCRIPT} is beside it (npm install -D ${REDOC_PACKAGE}, then rerun)\n`,
      );
    }
    return EXIT.ok;
  },
};
