/**
 * Static, offline documentation site, an emitter of the pipeline (target `docs`, written to docs/site by
 * `npm run docs`).
 *
 * The event pages come from the model: the spec's `webhooks` and the AsyncAPI messages (payload fields, formats,
 * examples, categories, signature headers) and the AsyncAPI document's planned events. The error catalogue and the
 * decisions are the human sources docs/errors.md and docs/decisions.md (the catalogue is checked against the spec's
 * error codes). The API reference page embeds the bundled document: that part is a document emitter, like the
 * contract's api-document.
 *
 * `renderDocsPages` / `renderDocsSite` are pure: the caller (scripts/docs.ts) copies the Redoc standalone bundle next
 * to the pages. Output is deterministic (no timestamps, input order preserved, stable JSON) so the site can be diffed.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import Handlebars from 'handlebars';
import type { Changelog } from '../diff/changelog.js';
import { RefResolver } from '../model/build.js';
import type { ApiModel, WebhookEventModel } from '../model/types.js';
import { clientBaseName } from './client.js';
import type { DocumentEmitContext, DocumentEmitter, EmitContext, Emitter } from './context.js';

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

export interface WebhookGuide {
  envelope: EventField[];
  headers: NamedText[];
}

export interface DocsTemplates {
  layout: string;
  index: string;
  events: string;
  errors: string;
  decisions: string;
  changelog: string;
}

/** What the pages say about the API, in its own words (D125: no Paygate prose unless the spec is Paygate's). */
export interface DocsApiInfo {
  title: string;
  version: string;
  /** Its short name (`x-client-name`, else the title's first word): "Paygate sends these events". */
  name?: string;
  /** The spec's error schema is the `{success: false, error: {code, message, details}}` envelope. */
  errorEnvelope?: boolean;
  /** `x-webhook-delivery`: the delivery policy bullets of the events page. */
  delivery?: string[];
}

export interface DocsPagesInput {
  api: DocsApiInfo;
  errors: ErrorEntry[];
  decisions: DecisionEntry[];
  events: EventEntry[];
  webhooks: WebhookGuide;
  templates: DocsTemplates;
  /** The changes between released contracts (openapi/released/): renders changelog.html when given. */
  changelog?: Changelog | undefined;
  /** File name of the Redoc standalone bundle the caller places in the site root. */
  redocScript?: string;
}

export interface DocsSiteInput extends Omit<DocsPagesInput, 'api'> {
  bundledDocument: object;
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
 * The script that starts Redoc, a file of its own (no inline script), so the site can be served with a
 * Content-Security-Policy allowing only same-origin scripts (`script-src 'self'`, decision D40).
 */
export const REDOC_INIT_SCRIPT = 'redoc-init.js';

/** The options index.html starts Redoc with. */
const REDOC_OPTIONS = {
  scrollYOffset: 48,
  downloadDefinitionUrl: SPEC_JSON,
  expandResponses: '200,201',
  jsonSampleExpandLevel: 3,
  hideHostname: false,
};

/** redoc-init.js: render the document of openapi.js (loaded before it) into #redoc-container. */
export function renderRedocInit(): string {
  return (
    `// Starts Redoc on the bundled document (openapi.js sets window.${SPEC_GLOBAL}). Generated: do not edit.\n` +
    `Redoc.init(window.${SPEC_GLOBAL}, ${JSON.stringify(REDOC_OPTIONS)}, document.getElementById('redoc-container'));\n`
  );
}

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

/** The bundled document beside the pages: JSON (download, tooling) and a script setting a global (file://). */
export function renderSpecFiles(bundledDocument: object): Map<string, string> {
  const files = new Map<string, string>();
  files.set(SPEC_JSON, `${JSON.stringify(bundledDocument, null, 2)}\n`);
  // JSON is valid JavaScript (ES2019+), and this is a separate .js file, so no HTML escaping applies.
  files.set(SPEC_SCRIPT, `window.${SPEC_GLOBAL} = ${JSON.stringify(bundledDocument)};\n`);
  return files;
}

/** Renders the whole site (pages and spec files). Keys are paths relative to the site root; values are file contents. */
export function renderDocsSite(input: DocsSiteInput): Map<string, string> {
  const { bundledDocument, ...rest } = input;
  return new Map([...renderSpecFiles(bundledDocument), ...renderDocsPages({ ...rest, api: specInfo(bundledDocument) })]);
}

/** Renders the HTML pages. */
export function renderDocsPages(input: DocsPagesInput): Map<string, string> {
  const hb = createEnvironment(input.templates);
  const name = input.api.name ?? clientBaseName(input.api.title);
  const info = {
    ...input.api,
    name,
    slug: name.toLowerCase(),
    envPrefix: name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase(),
    errorEnvelope: input.api.errorEnvelope ?? false,
    delivery: input.api.delivery ?? [],
  };
  const redocScript = input.redocScript ?? REDOC_SCRIPT;
  // a page for events, errors and decisions only when the spec (or its sources) has them
  const hasEvents = input.events.length > 0;
  const hasErrors = input.errors.length > 0;
  const hasDecisions = input.decisions.length > 0;
  const nav = [
    { href: 'index.html', label: 'API reference' },
    ...(hasEvents ? [{ href: 'events.html', label: 'Webhook events' }] : []),
    ...(hasErrors ? [{ href: 'errors.html', label: 'Errors' }] : []),
    ...(hasDecisions ? [{ href: 'decisions.html', label: 'Decisions' }] : []),
    ...(input.changelog === undefined ? [] : [{ href: 'changelog.html', label: 'Changelog' }]),
  ];
  const common = (page: string, title: string) => ({
    api: info,
    title,
    nav: nav.map((item) => ({ ...item, current: item.href === page })),
  });

  const files = new Map<string, string>();
  const page = (name: keyof Omit<DocsTemplates, 'layout'>, context: object): string =>
    hb.compile(input.templates[name], COMPILE_OPTIONS)(context);

  files.set(
    'index.html',
    page('index', {
      ...common('index.html', 'API reference'),
      redocScript,
      specScript: SPEC_SCRIPT,
      specJson: SPEC_JSON,
      initScript: REDOC_INIT_SCRIPT,
    }),
  );
  files.set(REDOC_INIT_SCRIPT, renderRedocInit());
  if (hasEvents) {
    files.set(
      'events.html',
      page('events', {
        ...common('events.html', 'Webhook events'),
        events: input.events,
        emitted: input.events.filter((e) => e.status === 'emitted'),
        future: input.events.filter((e) => e.status === 'future'),
        webhooks: input.webhooks,
        // the verification guide is Standard Webhooks' (whsec_ secrets): only for events signed that way
        standardWebhooks: input.webhooks.headers.some((h) => h.name.toLowerCase() === 'webhook-signature'),
      }),
    );
  }
  if (hasErrors) files.set('errors.html', page('errors', { ...common('errors.html', 'Errors'), errors: input.errors }));
  if (hasDecisions) {
    files.set(
      'decisions.html',
      page('decisions', {
        ...common('decisions.html', 'Decisions'),
        groups: groupBy(input.decisions, (d) => d.group),
      }),
    );
  }
  if (input.changelog !== undefined) {
    files.set('changelog.html', page('changelog', { ...common('changelog.html', 'Changelog'), sections: input.changelog.sections }));
  }
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

// ---------------------------------------------------------------------------------------------------------------
// Events from the model

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

function resolverOf(model: Pick<ApiModel, 'schemas'>): RefResolver {
  return new RefResolver({ components: { schemas: Object.fromEntries(model.schemas.map((s) => [s.name, s.schema])) } });
}

function typeLabel(resolver: RefResolver, schema: unknown): string {
  const s = resolver.deref<unknown>(schema);
  if (!isObj(s)) return 'any';
  const types = Array.isArray(s.type) ? s.type.map(String) : typeof s.type === 'string' ? [s.type] : [];
  const base = types.length > 0 ? types.join(' | ') : s.const !== undefined ? typeof s.const : 'any';
  return s.format === 'uuid' ? `${base} (UUID)` : base;
}

/** The property's own description, else its target's, else one derived from `const` / `enum`. */
function describe(resolver: RefResolver, schema: unknown): string {
  const own = isObj(schema) && typeof schema.description === 'string' ? schema.description : undefined;
  const s = resolver.deref<unknown>(schema);
  if (own !== undefined) return own;
  if (!isObj(s)) return '';
  if (typeof s.description === 'string') return s.description;
  if (s.const !== undefined) return `Always \`${String(s.const)}\`.`;
  if (Array.isArray(s.enum)) return `One of ${s.enum.map((v) => `\`${String(v)}\``).join(', ')}.`;
  return '';
}

/** Rows for an object's properties (in schema order); array-of-object properties add `name[].property` rows. */
function fieldRows(resolver: RefResolver, schema: unknown, prefix = ''): EventField[] {
  const { properties, required } = resolver.objectShape(schema);
  const rows: EventField[] = [];
  for (const [name, prop] of Object.entries(properties)) {
    rows.push({ name: `${prefix}${name}`, type: typeLabel(resolver, prop), required: required.has(name), description: describe(resolver, prop) });
    const resolved = resolver.deref<unknown>(prop);
    if (isObj(resolved) && resolved.type === 'array' && resolved.items !== undefined && Object.keys(resolver.objectShape(resolved.items).properties).length > 0) {
      rows.push(...fieldRows(resolver, resolved.items, `${prefix}${name}[].`));
    }
  }
  return rows;
}

function eventSummary(event: WebhookEventModel): string {
  return event.description ?? event.summary ?? '';
}

/** One entry per event of the model (sent in this version), then the planned ones. */
export function eventEntries(model: Pick<ApiModel, 'schemas' | 'webhooks' | 'plannedEvents'>): EventEntry[] {
  const resolver = resolverOf(model);
  const sent = model.webhooks.map((event): EventEntry => {
    const data = resolver.objectShape(event.schema).properties['data'];
    return {
      name: event.eventType,
      category: event.category ?? '',
      status: 'emitted',
      summary: eventSummary(event),
      eventTimeFormat: event.formats.find((f) => f.field === 'event_time')?.format ?? '',
      fields: data === undefined ? [] : fieldRows(resolver, data),
      example: event.examples[0] ?? null,
    };
  });
  const planned = model.plannedEvents.map((e): EventEntry => ({ name: e.eventType, category: e.category ?? '', status: 'future', summary: e.summary, eventTimeFormat: '', fields: [], example: null }));
  return [...sent, ...planned];
}

/** The envelope (top-level fields every event shares, described by the first event's schema) and the signature headers. */
export function webhookGuide(model: Pick<ApiModel, 'schemas' | 'webhooks'>): WebhookGuide {
  const resolver = resolverOf(model);
  const first = model.webhooks[0];
  if (first === undefined) return { envelope: [], headers: [] };
  const shared = (name: string) => model.webhooks.every((e) => resolver.objectShape(e.schema).properties[name] !== undefined);
  return {
    envelope: fieldRows(resolver, first.schema).filter((f) => !f.name.includes('.') && shared(f.name)),
    headers: first.headers.map((h) => ({ name: h.name, description: h.description ?? '' })),
  };
}

/** Whether the spec's errors are the `{success: false, error: {code, message}}` envelope (a component schema of that shape). */
export function hasErrorEnvelope(model: Pick<ApiModel, 'schemas'>): boolean {
  const resolver = resolverOf(model);
  return model.schemas.some((s) => {
    const { properties } = resolver.objectShape(s.schema);
    const error = properties['error'] === undefined ? undefined : resolver.objectShape(properties['error']).properties;
    return properties['success'] !== undefined && error !== undefined && error['code'] !== undefined && error['message'] !== undefined;
  });
}

function deliveryPolicy(raw: unknown): string[] {
  return Array.isArray(raw) ? raw.filter((line): line is string => typeof line === 'string') : [];
}

/** docs/errors.md and the spec must name the same error codes. */
export function checkErrorCatalogue(errors: readonly ErrorEntry[], specCodes: readonly string[]): void {
  if (specCodes.length === 0) return;
  const inSpec = new Set(specCodes);
  const inDocs = new Set(errors.map((e) => e.code));
  const missing = [...inDocs].filter((c) => !inSpec.has(c));
  const extra = [...inSpec].filter((c) => !inDocs.has(c));
  if (missing.length > 0 || extra.length > 0) {
    throw new Error(`error catalogue drift: only in docs/errors.md [${missing.join(', ')}]; only in the spec [${extra.join(', ')}]`);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Emitters

/** The human sources of the site besides the spec. */
export interface DocsSources {
  errorsMarkdown: string;
  decisionsMarkdown: string;
  templates: DocsTemplates;
  /** Computed by scripts/docs.ts from openapi/released/ (generators/src/diff/changelog.ts); no page without it. */
  changelog?: Changelog | undefined;
}

const DOCS_TEMPLATE_NAMES = ['layout', 'index', 'events', 'errors', 'decisions', 'changelog'] as const;

/** Reads templates/docs/*.hbs. */
export function readDocsTemplates(templatesDir: string): DocsTemplates {
  const read = (name: string) => readFileSync(path.join(templatesDir, 'docs', `${name}.hbs`), 'utf8');
  return Object.fromEntries(DOCS_TEMPLATE_NAMES.map((n) => [n, read(n)])) as unknown as DocsTemplates;
}

/** The pages (model + markdown sources) and the embedded document (openapi.json / openapi.js) of the site. */
export function createDocsEmitters(sources: DocsSources): Emitter[] {
  const pages: Emitter = {
    name: 'docs/pages',
    target: 'docs',
    emit(ctx: EmitContext) {
      const errors = parseErrorCatalogue(sources.errorsMarkdown);
      checkErrorCatalogue(errors, ctx.model.errorCodes);
      const files = renderDocsPages({
        api: {
          title: ctx.model.title,
          version: ctx.model.version,
          name: clientBaseName(ctx.model.title, ctx.model.clientName),
          errorEnvelope: hasErrorEnvelope(ctx.model),
          delivery: deliveryPolicy(ctx.model.extensions['x-webhook-delivery']),
        },
        errors,
        decisions: parseDecisions(sources.decisionsMarkdown),
        events: eventEntries(ctx.model),
        webhooks: webhookGuide(ctx.model),
        templates: sources.templates,
        changelog: sources.changelog,
        redocScript: REDOC_SCRIPT,
      });
      return [...files].map(([file, contents]) => ({ path: `${ctx.out.docs}/${file}`, contents }));
    },
  };
  const apiDocument: DocumentEmitter = {
    name: 'docs/api-document',
    target: 'docs',
    readsDocument: true,
    emit: (ctx: DocumentEmitContext) => [...renderSpecFiles(ctx.document)].map(([file, contents]) => ({ path: `${ctx.out.docs}/${file}`, contents })),
  };
  return [pages, apiDocument];
}

