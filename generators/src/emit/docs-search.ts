/**
 * One search over the whole site (D389 "One offline search, built with the site"): operations, schemas, events, error
 * codes, decisions and changelog entries, indexed with MiniSearch at build time. The serialized index ships as a
 * classic script (`search-index.js`, so it also loads from file://) with MiniSearch's UMD bundle (`minisearch.js`);
 * assets/search.js loads both the first time the reader uses a page's search box, so no page pays for search until
 * then. Nothing leaves the browser: no search service, no CDN.
 *
 * Deterministic: documents in a fixed order, ids by position, the index serialized by MiniSearch's own toJSON.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import MiniSearch, { type Options } from 'minisearch';

export interface SearchDocument {
  /** What it is, shown beside the result: `Operation`, `Schema`, `Event`, `Error code`, `Decision`, `Change`. */
  kind: string;
  /** The result's title. */
  title: string;
  /** An exact name (operationId, schema, event or error code): matched first. */
  code: string;
  /** The rest of the searchable text. */
  text: string;
  /** Where the result links to, relative to the site root. */
  url: string;
}

export const SEARCH_INDEX_SCRIPT = 'search-index.js';
export const SEARCH_LIBRARY_SCRIPT = 'minisearch.js';
export const SEARCH_GLOBAL = '__PAYGATE_SEARCH__';

/** The index's options: the browser loads the index with the same ones. */
export const SEARCH_OPTIONS = {
  fields: ['title', 'code', 'text'],
  storeFields: ['kind', 'title', 'code', 'url'],
  searchOptions: { boost: { code: 4, title: 2 }, prefix: true, fuzzy: 0.2, combineWith: 'AND' },
} as const satisfies Options;

/** Text without Markdown code and bold marks and with whitespace folded (the index stores it, results show it). */
export const plainText = (text: string): string =>
  text
    .replace(/`|\*\*/g, '')
    .replace(/\s+/g, ' ')
    .trim();

/** search-index.js: the serialized index and the options to load it with, as a global. */
export function renderSearchIndex(documents: readonly SearchDocument[]): string {
  const search = new MiniSearch<SearchDocument & { id: number }>({
    ...SEARCH_OPTIONS,
    fields: [...SEARCH_OPTIONS.fields],
    storeFields: [...SEARCH_OPTIONS.storeFields],
  });
  search.addAll(documents.map((d, id) => ({ ...d, title: plainText(d.title), text: plainText(d.text), id })));
  const payload = { options: SEARCH_OPTIONS, index: search.toJSON() };
  // JSON is valid JavaScript; a separate .js file, so no HTML escaping applies
  return `// The site's search index (MiniSearch ${MINISEARCH_VERSION}), built with the site. Generated: do not edit.\nwindow.${SEARCH_GLOBAL} = ${JSON.stringify(payload)};\n`;
}

const require = createRequire(import.meta.url);
const MINISEARCH_ROOT = path.resolve(path.dirname(require.resolve('minisearch')), '../..');
const MINISEARCH_VERSION = (JSON.parse(readFileSync(path.join(MINISEARCH_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

/** MiniSearch's browser bundle (UMD: sets `window.MiniSearch`) and its licence, placed in the site as they are. */
export function minisearchFiles(): Map<string, string> {
  return new Map([
    [SEARCH_LIBRARY_SCRIPT, readFileSync(path.join(MINISEARCH_ROOT, 'dist/umd/index.js'), 'utf8')],
    ['minisearch.LICENSE.txt', readFileSync(path.join(MINISEARCH_ROOT, 'LICENSE.txt'), 'utf8')],
  ]);
}
