/**
 * Static, offline documentation site: pure page generation.
 *
 * `renderDocsSite` turns the bundled OpenAPI document, the error catalogue, the decisions table and the webhook
 * event descriptions into a map of relative path -> file contents. It does no I/O: the caller (scripts/docs.ts)
 * reads the inputs, copies the Redoc standalone bundle next to the pages and writes the map to disk.
 *
 * Output is deterministic (no timestamps, input order preserved, stable JSON) so the site can be diffed.
 */
import Handlebars from 'handlebars';

export interface ErrorEntry {
  code: string;
  status: number;
  when: string;
  details: string;
  action: string;
}

export interface DecisionEntry {
  /** Row id, e.g. `A1`. */
  id: string;
  /** Section heading the row sits under in docs/decisions.md. */
  group: string;
  seedSays: string;
  decision: string;
  reason: string;
  anchor: string;
}

export interface EventField {
  name: string;
  type: string;
  required: boolean;
  description: string;
}

export interface EventEntry {
  name: string;
  category: string;
  summary: string;
  /** Human shape of `event_time`, e.g. `YYYY-MM-DD HH:MM:SSZ`. */
  eventTimeFormat: string;
  /** `data` fields. */
  fields: EventField[];
  /** A complete example envelope. */
  example: unknown;
  /** `emitted` in this version, or `future` (documented, not sent yet). */
  status: 'emitted' | 'future';
}

export interface NamedText {
  name: string;
  description: string;
}

export interface CodeExample {
  title: string;
  language: string;
  code: string;
}

export interface WebhookGuide {
  envelope: EventField[];
  headers: NamedText[];
  delivery: string[];
  examples: CodeExample[];
}

export interface DocsTemplates {
  layout: string;
  index: string;
  events: string;
  errors: string;
  decisions: string;
}

export interface DocsSiteInput {
  bundledDocument: object;
  errors: ErrorEntry[];
  decisions: DecisionEntry[];
  events: EventEntry[];
  webhooks: WebhookGuide;
  templates: DocsTemplates;
  /** File name of the Redoc standalone bundle the caller places in the site root. */
  redocScript?: string;
}

export const REDOC_SCRIPT = 'redoc.standalone.js';
/** The bundled document as JSON (download link, tooling). */
export const SPEC_JSON = 'openapi.json';
/**
 * The same document as a classic script setting a global, so index.html also works from file:// (browsers block
 * fetch() of a local JSON file, but load local <script src> files).
 */
export const SPEC_SCRIPT = 'openapi.js';
export const SPEC_GLOBAL = '__PAYGATE_OPENAPI__';

/**
 * Handlebars for HTML pages. The project's code templates compile with `noEscape: true` because they emit
 * TypeScript, where HTML entities would corrupt the output. These templates emit HTML, and every value comes from
 * the spec, the seed-derived Markdown tables or event examples (text with `<`, `>`, `&`, quotes), so the default
 * escaping is kept on: `{{value}}` is HTML-escaped and only helpers below return pre-escaped SafeStrings.
 * `strict: true` makes a misspelt field a build error instead of an empty cell.
 */
const COMPILE_OPTIONS = { strict: true, noEscape: false } as const;

function createEnvironment(templates: DocsTemplates): typeof Handlebars {
  const hb = Handlebars.create();
  /** Escape, then turn `code spans` into <code> elements (the only markup the Markdown tables use). */
  hb.registerHelper('inline', (value: unknown) => new hb.SafeString(inlineHtml(String(value), hb.escapeExpression)));
  hb.registerHelper('json', (value: unknown) => JSON.stringify(value, null, 2));
  hb.registerHelper('yesno', (value: unknown) => (value ? 'yes' : 'no'));
  hb.registerHelper('eq', (a: unknown, b: unknown) => a === b);
  hb.registerPartial('docs-layout', hb.compile(templates.layout, COMPILE_OPTIONS));
  return hb;
}

/**
 * Escapes text for HTML and renders `code spans` as <code>. Splits on backticks first (escapeExpression also
 * escapes the backtick), so every piece of text, inside or outside a span, goes through the escaper. An unpaired
 * trailing backtick is kept as text.
 */
export function inlineHtml(text: string, escape: (s: string) => string = Handlebars.escapeExpression): string {
  const parts = text.split('`');
  if (parts.length % 2 === 0) {
    const last = parts.pop() ?? '';
    parts[parts.length - 1] += `\`${last}`;
  }
  return parts.map((part, i) => (i % 2 === 1 ? `<code>${escape(part)}</code>` : escape(part))).join('');
}

interface Group<T> {
  name: string;
  rows: T[];
}

function groupBy<T>(rows: T[], key: (row: T) => string): Group<T>[] {
  const groups: Group<T>[] = [];
  for (const row of rows) {
    const name = key(row);
    const last = groups[groups.length - 1];
    if (last && last.name === name) last.rows.push(row);
    else groups.push({ name, rows: [row] });
  }
  return groups;
}

function specInfo(doc: object): { title: string; version: string } {
  const info = (doc as { info?: { title?: unknown; version?: unknown } }).info;
  return {
    title: typeof info?.title === 'string' ? info.title : 'API reference',
    version: typeof info?.version === 'string' ? info.version : '',
  };
}

/** Renders the site. Keys are paths relative to the site root; values are file contents. */
export function renderDocsSite(input: DocsSiteInput): Map<string, string> {
  const hb = createEnvironment(input.templates);
  const info = specInfo(input.bundledDocument);
  const redocScript = input.redocScript ?? REDOC_SCRIPT;
  const nav = [
    { href: 'index.html', label: 'API reference' },
    { href: 'events.html', label: 'Webhook events' },
    { href: 'errors.html', label: 'Errors' },
    { href: 'decisions.html', label: 'Decisions' },
  ];
  const common = (page: string, title: string) => ({
    api: info,
    title,
    nav: nav.map((item) => ({ ...item, current: item.href === page })),
  });

  const files = new Map<string, string>();
  const specJson = JSON.stringify(input.bundledDocument, null, 2);
  files.set(SPEC_JSON, `${specJson}\n`);
  // JSON is valid JavaScript (ES2019+), and this is a separate .js file, so no HTML escaping applies.
  files.set(SPEC_SCRIPT, `window.${SPEC_GLOBAL} = ${JSON.stringify(input.bundledDocument)};\n`);

  const page = (name: keyof Omit<DocsTemplates, 'layout'>, context: object): string =>
    hb.compile(input.templates[name], COMPILE_OPTIONS)(context);

  files.set(
    'index.html',
    page('index', {
      ...common('index.html', 'API reference'),
      redocScript,
      specScript: SPEC_SCRIPT,
      specJson: SPEC_JSON,
      specGlobal: SPEC_GLOBAL,
    }),
  );
  files.set(
    'events.html',
    page('events', {
      ...common('events.html', 'Webhook events'),
      events: input.events,
      emitted: input.events.filter((e) => e.status === 'emitted'),
      future: input.events.filter((e) => e.status === 'future'),
      webhooks: input.webhooks,
    }),
  );
  files.set(
    'errors.html',
    page('errors', { ...common('errors.html', 'Errors'), errors: input.errors }),
  );
  files.set(
    'decisions.html',
    page('decisions', {
      ...common('decisions.html', 'Decisions'),
      groups: groupBy(input.decisions, (d) => d.group),
    }),
  );
  return files;
}

// ---------------------------------------------------------------------------------------------------------------
// Markdown tables: docs/errors.md and docs/decisions.md are the human sources; these parse their pipe tables.

export interface MarkdownTable {
  /** Text of the nearest `##` heading above the table ('' when none). */
  heading: string;
  header: string[];
  rows: string[][];
}

/** Splits one `| a | b \| c |` line into trimmed cells; `\|` is a literal pipe. */
export function splitTableRow(line: string): string[] {
  const body = line.trim().replace(/^\|/, '').replace(/\|$/, '');
  const cells: string[] = [];
  let current = '';
  for (let i = 0; i < body.length; i++) {
    const ch = body[i];
    if (ch === '\\' && body[i + 1] === '|') {
      current += '|';
      i++;
    } else if (ch === '|') {
      cells.push(current.trim());
      current = '';
    } else {
      current += ch;
    }
  }
  cells.push(current.trim());
  return cells;
}

/** Every pipe table in a Markdown document (outside fenced code blocks). */
export function parseMarkdownTables(markdown: string): MarkdownTable[] {
  const lines = markdown.split(/\r?\n/);
  const tables: MarkdownTable[] = [];
  let heading = '';
  let inFence = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (/^\s*```/.test(line)) inFence = !inFence;
    if (inFence) continue;
    const h = /^#{1,6}\s+(.*)$/.exec(line);
    if (h) {
      heading = (h[1] ?? '').trim();
      continue;
    }
    const next = lines[i + 1] ?? '';
    if (line.trim().startsWith('|') && /^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/.test(next)) {
      const header = splitTableRow(line);
      const rows: string[][] = [];
      i += 2;
      while (i < lines.length && (lines[i] ?? '').trim().startsWith('|')) {
        rows.push(splitTableRow(lines[i] ?? ''));
        i++;
      }
      i--;
      tables.push({ heading, header, rows });
    }
  }
  return tables;
}

function tablesWithHeader(markdown: string, header: string[]): MarkdownTable[] {
  const want = header.map((h) => h.toLowerCase());
  return parseMarkdownTables(markdown).filter(
    (t) => t.header.length === want.length && t.header.every((h, i) => h.toLowerCase() === want[i]),
  );
}

function cell(row: string[], index: number, where: string): string {
  const value = row[index];
  if (value === undefined) throw new Error(`${where}: missing column ${index + 1}`);
  return value;
}

export const ERROR_TABLE_HEADER = ['Code', 'HTTP', 'When', 'Details keys', 'What the client should do'];
export const DECISION_TABLE_HEADER = ['#', 'Seed says', 'Decision', 'Reason', 'Anchor'];

/** Reads the catalogue table of docs/errors.md. */
export function parseErrorCatalogue(markdown: string): ErrorEntry[] {
  const tables = tablesWithHeader(markdown, ERROR_TABLE_HEADER);
  if (tables.length !== 1) throw new Error(`errors.md: expected one table headed ${ERROR_TABLE_HEADER.join(' | ')}, found ${tables.length}`);
  return tables[0]!.rows.map((row) => {
    const where = `errors.md row ${row[0] ?? '?'}`;
    if (row.length !== ERROR_TABLE_HEADER.length) throw new Error(`${where}: expected ${ERROR_TABLE_HEADER.length} cells, got ${row.length}`);
    const status = Number(cell(row, 1, where));
    if (!Number.isInteger(status)) throw new Error(`${where}: HTTP status is not an integer`);
    return {
      code: cell(row, 0, where),
      status,
      when: cell(row, 2, where),
      details: cell(row, 3, where),
      action: cell(row, 4, where),
    };
  });
}

/** Reads every decisions table of docs/decisions.md; `group` is the section heading. */
export function parseDecisions(markdown: string): DecisionEntry[] {
  const tables = tablesWithHeader(markdown, DECISION_TABLE_HEADER);
  if (tables.length === 0) throw new Error(`decisions.md: no table headed ${DECISION_TABLE_HEADER.join(' | ')}`);
  return tables.flatMap((t) =>
    t.rows.map((row) => {
      const where = `decisions.md row ${row[0] ?? '?'}`;
      if (row.length !== DECISION_TABLE_HEADER.length) throw new Error(`${where}: expected ${DECISION_TABLE_HEADER.length} cells, got ${row.length}`);
      return {
        id: cell(row, 0, where),
        group: t.heading,
        seedSays: cell(row, 1, where),
        decision: cell(row, 2, where),
        reason: cell(row, 3, where),
        anchor: cell(row, 4, where),
      };
    }),
  );
}
