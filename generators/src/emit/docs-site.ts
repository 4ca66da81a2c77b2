/**
 * Static, offline documentation site, an emitter of the pipeline (target `docs`, written to docs/site by
 * `npm run docs`).
 *
 * The event pages come from the model: the spec's `webhooks` and the AsyncAPI messages (payload fields, formats,
 * examples, categories, signature headers) and the AsyncAPI document's planned events. The error catalogue and the
 * decisions are the human sources docs/errors.md and docs/decisions.md (the catalogue is checked against the spec's
 * error codes); decisions are the records of docs/decisions/ (emit/decision-records.ts) when the folder exists. The API reference page embeds the bundled document: that part is a document emitter, like the
 * contract's api-document.
 *
 * `renderDocsPages` / `renderDocsSite` are pure: the caller (scripts/docs.ts) copies the Redoc standalone bundle next
 * to the pages. Output is deterministic (no timestamps, input order preserved, stable JSON) so the site can be diffed.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import Handlebars from 'handlebars';
import type { Changelog, ChangelogSection } from '../diff/changelog.js';
import { allowMatches, type AllowKey } from '../diff/allow-match.js';
import type { Change, ChangeUse } from '../diff/types.js';
import { derefNode, namedNodes, objectShapeOf, type ResolveNamed } from '../model/schema/shape.js';
import type { SchemaNode } from '../model/schema/types.js';
import { openapiFileOf, UnsupportedSpecError } from '../parse/refusal.js';
import type { ApiModel, WebhookEventModel } from '../model/types.js';
import { compareStrings } from '../util/sorted.js';
import { clientBaseName } from './client.js';
import { hasSpecErrors, specErrorsView, type SpecErrorsView } from './docs-errors.js';
import { diagramsView, type DiagramsView } from './docs-diagrams.js';
import { operationViews, schemaViews, tagViews, type OperationView, type SchemaView } from './docs-reference.js';
import { eventFieldType, fieldDescription } from './docs-schema-labels.js';
import { credentialVariable, operationSamples, sampleSettings, withCodeSamples, type OperationSamples } from './docs-samples.js';
import { minisearchFiles, renderSearchIndex, SEARCH_INDEX_SCRIPT, type SearchDocument } from './docs-search.js';
import type { DocumentEmitContext, DocumentEmitter, EmitContext, Emitter } from './context.js';
import { isObj } from '../util/json.js';

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
  /** A few words saying what was decided (a decision record's heading; a table row has none). */
  title?: string;
  /** Section heading the row sits under in docs/decisions.md. */
  group: string;
  /** What the source specification says (the decisions table's second column). */
  specSays: string;
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
  /**
   * Where the spec declares it, each a sentence with code spans (D213 events page says where each event is declared): "Webhook `PAYMENT_FAILED`.", "Callback
   * `fileUpdate` of `postWebhook` (`POST /v2/webhooks`), sent to `{$request.body#/endpoint}`." Default: none.
   */
  sources?: string[];
  /** The payload: its media type and schema name, as a sentence with code spans. Default: none. */
  payload?: string;
  /** Whose fields `fields` are: the payload's `data` object (default), or the payload itself. */
  fieldsOf?: 'data' | 'payload';
  /** Whether the API's discriminator names it (default true): the verification example switches on those. */
  discriminated?: boolean;
}

export interface NamedText {
  name: string;
  description: string;
}

export interface WebhookGuide {
  envelope: EventField[];
  headers: NamedText[];
  /** The payload property naming the event (`event_type`, `type`), when the API has one (default `event_type`). */
  discriminator?: string | undefined;
}

export interface DocsTemplates {
  layout: string;
  index: string;
  events: string;
  errors: string;
  decisions: string;
  changelog: string;
  /** The light reference's pages (templates/docs/reference/): without them the site has Redoc's reference only. */
  reference?: ReferenceTemplates | undefined;
  /** The site's scripts (templates/docs/assets/*.js), copied as they are: copy buttons and search, try-it. */
  assets?: Readonly<Record<string, string>> | undefined;
}

export interface ReferenceTemplates {
  operation: string;
  operations: string;
  schemas: string;
  fields: string;
  diagrams: string;
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
  /** The error catalogue's rows (docs/errors.md or `--errors`), checked against the spec's codes. */
  errors: ErrorEntry[];
  /** Without a catalogue: the errors page from the spec's own error responses, schemas and codes (D203 error catalogue check only when given). */
  specErrors?: SpecErrorsView | undefined;
  decisions: DecisionEntry[];
  events: EventEntry[];
  webhooks: WebhookGuide;
  templates: DocsTemplates;
  /** The changes between released contracts (openapi/released/): renders changelog.html when given. */
  changelog?: Changelog | undefined;
  /**
   * The allow file's entries (kind, pointer, reason): breaking changes and warnings of the unreleased section that were
   * reviewed and accepted within the major version; the page shows each one's reason.
   */
  changelogReviewed?: readonly ChangelogReview[] | undefined;
  /** File name of the Redoc standalone bundle the caller places in the site root. */
  redocScript?: string;
  /** The spec's state machines and delivery timeline (emit/docs-diagrams.ts): diagrams.html when given. */
  diagrams?: DiagramsView | undefined;
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

/**
 * Redoc's sidebar credit ("API docs by Redocly") shows an image its standalone bundle loads from this address,
 * unconditionally and with no option to change it. The site makes no third-party request (it works offline, and its
 * CSP allows images from `data:` only), so every page load logged a refused request. The copy of the bundle placed
 * in the site names a small local image instead (a data: URL, D136); the credit's text and link stay.
 */
export const REDOC_CDN_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';
const LOCAL_REDOC_LOGO = `data:image/svg+xml,${encodeURIComponent(
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><path fill="#8a94a6" d="M3 1h7l3 3v11H3z"/><path fill="#fff" d="M5 7h6v1H5zm0 2h6v1H5zm0 2h4v1H5z"/></svg>',
)}`;

/** The Redoc bundle as the site serves it: the credit's image from a data: URL, not Redocly's CDN. */
export function withLocalRedocLogo(bundle: string): { text: string; replaced: number } {
  const parts = bundle.split(REDOC_CDN_LOGO);
  return { text: parts.join(LOCAL_REDOC_LOGO), replaced: parts.length - 1 };
}

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
    `const container = document.getElementById('redoc-container');\n` +
    `// Redoc's code samples scroll sideways but cannot take focus: each one is made reachable by keyboard, also those\n` +
    `// rendered later (an expanded response), so a keyboard user can scroll them too.\n` +
    `const focusable = () => container.querySelectorAll('pre:not([tabindex])').forEach((pre) => pre.setAttribute('tabindex', '0'));\n` +
    `new MutationObserver(focusable).observe(container, { childList: true, subtree: true });\n` +
    `Redoc.init(window.${SPEC_GLOBAL}, ${JSON.stringify(REDOC_OPTIONS)}, container, focusable);\n`
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
  // (concat "a" b "c"): the last argument is Handlebars' options object
  hb.registerHelper('concat', (...args: unknown[]) => args.slice(0, -1).map(String).join(''));
  if (templates.reference !== undefined) hb.registerPartial('docs-fields', hb.compile(templates.reference.fields, COMPILE_OPTIONS));
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

/**
 * The document with its `webhooks` in name order: Redoc lists webhooks in document order, and the reader of the
 * reference scans the sidebar for one event (the events page sorts them the same way). Key order means nothing to
 * JSON readers, so the download stays the same contract.
 */
export function withSortedWebhooks(document: object): object {
  const webhooks = (document as { webhooks?: unknown }).webhooks;
  if (!isObj(webhooks)) return document;
  const sorted = Object.fromEntries(
    Object.keys(webhooks)
      .sort(compareStrings)
      .map((key) => [key, webhooks[key]]),
  );
  return { ...document, webhooks: sorted };
}

/** The bundled document beside the pages: JSON (download, tooling) and a script setting a global (file://). */
export function renderSpecFiles(bundled: object): Map<string, string> {
  const bundledDocument = withSortedWebhooks(bundled);
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

/** What every page of the site shares: the Handlebars environment, the API's words, the navigation. */
function siteFrame(input: DocsPagesInput) {
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
  // a page for events, errors and decisions only when the spec (or its sources) has them
  const hasEvents = input.events.length > 0;
  const specErrors = input.specErrors !== undefined && hasSpecErrors(input.specErrors) ? input.specErrors : undefined;
  const hasErrors = input.errors.length > 0 || specErrors !== undefined;
  const hasDecisions = input.decisions.length > 0;
  const hasReference = input.templates.reference !== undefined;
  const hasDiagrams = hasReference && input.diagrams !== undefined;
  const nav = [
    { href: 'index.html', label: 'API reference' },
    ...(hasReference ? [{ href: 'operations.html', label: 'Operations' }] : []),
    ...(hasDiagrams ? [{ href: 'diagrams.html', label: 'Diagrams' }] : []),
    ...(hasEvents ? [{ href: 'events.html', label: 'Webhook events' }] : []),
    ...(hasErrors ? [{ href: 'errors.html', label: 'Errors' }] : []),
    ...(hasDecisions ? [{ href: 'decisions.html', label: 'Decisions' }] : []),
    ...(input.changelog === undefined ? [] : [{ href: 'changelog.html', label: 'Changelog' }]),
  ];
  // the search box (site.js) on every page when the site has its scripts and its index (the reference pages)
  const search = hasReference && input.templates.assets?.['site.js'] !== undefined;
  const common = (page: string, title: string) => ({
    api: info,
    title,
    search,
    nav: nav.map((item) => ({ ...item, current: item.href === page })),
  });
  return { hb, info, hasEvents, specErrors, hasErrors, hasDecisions, hasDiagrams, common, search };
}

/** Renders the HTML pages. */
export function renderDocsPages(input: DocsPagesInput): Map<string, string> {
  const { hb, hasEvents, specErrors, hasErrors, hasDecisions, hasDiagrams, common } = siteFrame(input);
  const redocScript = input.redocScript ?? REDOC_SCRIPT;
  const files = new Map<string, string>();
  const page = (name: 'index' | 'events' | 'errors' | 'decisions' | 'changelog', context: object): string =>
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
  if (hasEvents) files.set('events.html', page('events', { ...common('events.html', 'Webhook events'), ...eventsPageView(input) }));
  if (hasErrors) {
    files.set('errors.html', page('errors', { ...common('errors.html', 'Errors'), errors: input.errors, specErrors: specErrors ?? false }));
  }
  if (hasDecisions) {
    files.set(
      'decisions.html',
      page('decisions', {
        ...common('decisions.html', 'Decisions'),
        groups: groupBy(input.decisions, (d) => d.group),
      }),
    );
  }
  if (hasDiagrams && input.templates.reference !== undefined) {
    const template = hb.compile(input.templates.reference.diagrams, COMPILE_OPTIONS);
    files.set('diagrams.html', template({ ...common('diagrams.html', 'Diagrams'), diagrams: input.diagrams }));
  }
  if (input.changelog !== undefined) {
    files.set(
      'changelog.html',
      page('changelog', {
        ...common('changelog.html', 'Changelog'),
        sections: changelogView(input.changelog, input.changelogReviewed ?? []),
      }),
    );
  }
  return files;
}

/** The light reference's inputs: the model, the bundled document and the samples of its operations. */
export interface ReferenceInput {
  model: ApiModel;
  document: Readonly<Record<string, unknown>>;
  samples: readonly OperationSamples[];
}

/**
 * The light reference (operation pages, operations.html, schemas.html), the search index over the whole site and the
 * site's scripts. Empty without the reference templates.
 */
export function renderReferencePages(input: DocsPagesInput, reference: ReferenceInput): Map<string, string> {
  const templates = input.templates.reference;
  const files = new Map<string, string>();
  if (templates === undefined) return files;
  const { hb, common, search } = siteFrame(input);
  const render = (template: string, context: object) => hb.compile(template, COMPILE_OPTIONS)(context);
  const { model, document } = reference;
  const operations = operationViews(model, document, reference.samples);
  const schemes = new Map(model.securitySchemes.map((s) => [s.name, s]));
  const settings = sampleSettings(model, document.info as Record<string, unknown> | undefined);
  for (const op of operations) {
    const opModel = model.operations.find((o) => o.operationId === op.id)!;
    // the try-it form's credentials: the schemes of the operation's first alternative that a browser can send
    const auth = (opModel.security[0] ?? []).flatMap((r) => {
      const scheme = schemes.get(r.scheme);
      if (scheme === undefined) return [];
      const where =
        scheme.type === 'apiKey' && (scheme.in === 'header' || scheme.in === 'query')
          ? scheme.in
          : scheme.type === 'http' && scheme.scheme?.toLowerCase() === 'bearer'
            ? 'bearer'
            : scheme.type === 'oauth2' || scheme.type === 'openIdConnect'
              ? 'bearer'
              : undefined;
      if (where === undefined) return [];
      return [
        {
          scheme: scheme.name,
          label: scheme.parameterName ?? `${scheme.name} token`,
          in: where,
          name: scheme.parameterName ?? '',
          id: `try-auth-${scheme.name.replace(/[^A-Za-z0-9_-]/g, '-')}`,
          // the samples' variable for this credential: try-it fills the reader's value into the samples it shows
          env: credentialVariable(settings, scheme),
          secret:
            /secret|token|password|key/i.test(`${scheme.name} ${scheme.parameterName ?? ''}`) && !/id$/i.test(scheme.parameterName ?? ''),
        },
      ];
    });
    const idempotency = opModel.parameters.header.find((h) => h.name.toLowerCase() === 'idempotency-key');
    files.set(
      op.file,
      render(templates.operation, {
        ...common(op.file, op.title),
        op,
        auth,
        idempotencyHeader: idempotency?.name ?? '',
        urlEnv: `${settings.envPrefix}_URL`,
      }),
    );
  }
  const tags = tagViews(model, operations).map((t) => ({
    ...t,
    operations: t.operations.map((o) => ({ ...o, methodLower: o.method.toLowerCase() })),
  }));
  files.set('operations.html', render(templates.operations, { ...common('operations.html', 'Operations'), tags }));
  const schemas = schemaViews(model);
  files.set('schemas.html', render(templates.schemas, { ...common('schemas.html', 'Schemas'), schemas }));
  if (search) {
    files.set(SEARCH_INDEX_SCRIPT, renderSearchIndex(searchDocuments(input, operations, schemas)));
    for (const [file, contents] of minisearchFiles()) files.set(file, contents);
  }
  for (const [file, contents] of Object.entries(input.templates.assets ?? {})) files.set(file, contents);
  return files;
}

/** Everything the search finds, in a fixed order: operations, schemas, events, error codes, decisions, changes. */
export function searchDocuments(
  input: Omit<DocsPagesInput, 'api'>,
  operations: readonly OperationView[],
  schemas: readonly SchemaView[],
): SearchDocument[] {
  const docs: SearchDocument[] = [];
  const strip = (html: string) =>
    html
      .replace(/<[^>]+>/g, ' ')
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&amp;/g, '&');
  for (const op of operations) {
    docs.push({
      kind: 'Operation',
      title: `${op.title} (${op.method} ${op.path})`,
      code: op.id,
      text: `${op.method} ${op.path} ${op.tag} ${strip(op.descriptionHtml)}`,
      url: op.file,
    });
  }
  for (const schema of schemas) {
    docs.push({
      kind: 'Schema',
      title: schema.name,
      code: schema.name,
      text: `${strip(schema.descriptionHtml)} ${schema.rows.map((r) => r.name).join(' ')}`,
      url: `schemas.html#${schema.anchor}`,
    });
  }
  for (const event of input.events) {
    docs.push({
      kind: 'Event',
      title: event.name,
      code: event.name,
      text: `${event.category} ${event.summary}`,
      url: `events.html#${event.name}`,
    });
  }
  const specCodes = input.specErrors?.codes ?? [];
  for (const error of input.errors.length > 0 ? input.errors : specCodes) {
    docs.push({
      kind: 'Error code',
      title: `${error.code} (${error.status})`,
      code: error.code,
      text: `${error.when} ${'action' in error ? error.action : ''}`,
      url: `errors.html#${error.code}`,
    });
  }
  for (const decision of input.decisions) {
    const title = decision.title ?? /^\*\*([^*]+)\*\*/.exec(decision.decision)?.[1] ?? decision.decision.slice(0, 90);
    docs.push({
      kind: 'Decision',
      title: `${decision.id}: ${title}`,
      code: decision.id,
      text: `${decision.specSays} ${decision.decision} ${decision.reason}`,
      url: `decisions.html#${decision.id}`,
    });
  }
  for (const machine of input.diagrams?.machines ?? []) {
    docs.push({
      kind: 'Diagram',
      title: `${machine.title} states`,
      code: '',
      text: machine.moves.join(' '),
      url: `diagrams.html#${machine.id}`,
    });
  }
  if (input.diagrams?.timeline) {
    docs.push({
      kind: 'Diagram',
      title: 'Webhook delivery timeline',
      code: '',
      text: 'retries retry schedule attempts given up webhook delivery',
      url: 'diagrams.html#webhook-delivery',
    });
  }
  if (input.changelog !== undefined) {
    for (const section of changelogView(input.changelog, input.changelogReviewed ?? [])) {
      for (const entry of [...section.breaking, ...section.unclassified, ...section.strict, ...section.additions]) {
        docs.push({
          kind: 'Change',
          title: `${section.title}: ${entry.what}`,
          code: '',
          text: `${entry.where} ${entry.todo}`,
          url: `changelog.html#v-${section.id}`,
        });
      }
    }
  }
  return docs;
}

/** The events page's view ("The events page for any spec", D213): every event with its sources and fields, the envelope and headers when there are some. */
function eventsPageView(input: Pick<DocsPagesInput, 'events' | 'webhooks'>): object {
  const events = input.events.map((e) => ({
    ...e,
    sources: e.sources ?? [],
    payload: e.payload ?? '',
    fieldsLabel: (e.fieldsOf ?? 'data') === 'data' ? '<code>data</code> field' : 'Field',
    discriminated: e.discriminated ?? true,
  }));
  // by name, whatever order the caller gave: the reader scans for one event
  const emitted = events.filter((e) => e.status === 'emitted').sort(byEventName);
  const origins = emitted.flatMap((e) => e.sources);
  return {
    events,
    emitted,
    discriminated: emitted.filter((e) => e.discriminated),
    future: events.filter((e) => e.status === 'future').sort(byEventName),
    webhooks: { ...input.webhooks, discriminator: input.webhooks.discriminator ?? 'event_type' },
    // how the events travel: Paygate's sentence when every event is a JSON webhook, else per kind of declaration
    onlyWebhooks: origins.every((o) => o.startsWith('Webhook ')),
    hasWebhooks: origins.some((o) => o.startsWith('Webhook ')),
    hasCallbacks: origins.some((o) => o.startsWith('Callback ')),
    // the verification guide is Standard Webhooks' (whsec_ secrets): only for events signed that way
    standardWebhooks: input.webhooks.headers.some((h) => h.name.toLowerCase() === 'webhook-signature'),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// The changelog page, written for the API's clients (D135 docs changelog written for clients): what can break them and what to do first, then the
// additions; documentation-only changes (annotations) are counted and folded away, never headlined.

/** An allow-file entry: a breaking change or warning reviewed and accepted within the major version, with its reason. */
export interface ChangelogReview extends AllowKey {
  reason: string;
}

export interface ChangelogEntryView {
  /** The comparer's sentence (inline Markdown: `code spans`). */
  what: string;
  /** The operations, webhooks and events that reach it (`POST /orders request body; ... and 2 more`), else its pointer. */
  where: string;
  /** What a client does about it ('' for additions and annotations). */
  todo: string;
  /** Why it was accepted without a new major version ('' when it was not reviewed). */
  reviewed: string;
}

export interface ChangelogSectionView {
  title: string;
  /** Fragment id: `unreleased`, `1.0.0`. */
  id: string;
  date: string;
  previous: string;
  /** One sentence naming the breaking and additive counts (never the annotations). */
  headline: string;
  breaking: ChangelogEntryView[];
  unclassified: ChangelogEntryView[];
  strict: ChangelogEntryView[];
  additions: ChangelogEntryView[];
  annotations: ChangelogEntryView[];
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

function whereText(uses: readonly ChangeUse[], useCount: number, document: string, pointer: string): string {
  if (useCount === 0) return `\`${document}#${pointer}\``;
  const listed = uses.slice(0, 3).map((u) => `${u.where}${u.in ? ` (${u.in})` : ''}`);
  const more = useCount - listed.length;
  return `${listed.join('; ')}${more > 0 ? `; and ${more} more` : ''}`;
}

/** `description-changed` -> `Description changed`. */
function humanKind(kind: string): string {
  const words = kind.replace(/-/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** What a client does about a change that may break it: by kind where the kind says it, else by direction. */
export function changelogTodo(change: Pick<Change, 'classification' | 'kind' | 'uses'>): string {
  if (change.classification === 'non-breaking' || change.classification === 'annotation') return '';
  const { kind } = change;
  if (kind.startsWith('enum-value-added')) return 'Accept values you do not know (treat them as "other"), or update your list of values.';
  if (kind.startsWith('default-changed')) return 'Send the value yourself if you relied on the old default.';
  if (kind.startsWith('event-added') || kind.startsWith('webhook-added')) return 'Ignore event types you do not handle.';
  if (change.classification === 'unclassified') return 'Not classified automatically: compare it with how your integration uses this part.';
  const reads = change.uses.some((u) => u.direction === 'response');
  const writes = change.uses.some((u) => u.direction === 'request');
  if (kind.endsWith('-removed')) {
    return writes && !reads ? 'Stop sending it before you upgrade.' : 'Stop relying on it before you upgrade.';
  }
  if (writes && !reads) return 'Check the requests you send against the new rule before you upgrade.';
  if (change.classification === 'warning')
    return 'Nothing, unless your client rejects what it does not know: then let it accept the new shape.';
  return 'Check how your code reads it before you upgrade.';
}

function entryView(change: Change, reviews: readonly ChangelogReview[]): ChangelogEntryView {
  return {
    // a documentation change is named, not quoted: the old text may say what the new one corrected
    what: change.classification === 'annotation' ? `${humanKind(change.kind)}: \`${change.document}#${change.pointer}\`` : change.message,
    where: whereText(change.uses, change.useCount, change.document, change.pointer),
    todo: changelogTodo(change),
    // the gate's own matching (an enum value by its list and value, D461)
    reviewed: reviews.find((r) => allowMatches(r, change))?.reason ?? '',
  };
}

/** The headline of a compared section: breaking and additive counts, plus the not-yet-classified and strict-only ones when there are any. */
export function changelogHeadline(counts: ChangelogSection['counts'], reviewedCount: number): string {
  const parts = [plural(counts.breaking, 'breaking change', 'breaking changes')];
  if (counts.unclassified > 0) parts.push(plural(counts.unclassified, 'change still to review', 'changes still to review'));
  if (counts.warning > 0)
    parts.push(plural(counts.warning, 'change that can affect strict clients only', 'changes that can affect strict clients only'));
  parts.push(plural(counts['non-breaking'], 'addition', 'additions'));
  const last = parts.pop()!;
  const sentence = `${parts.join(', ')} and ${last}.`;
  const mayBreak = counts.breaking + counts.unclassified + counts.warning;
  if (mayBreak === 0 || reviewedCount === 0) return sentence;
  return `${sentence} ${reviewedCount === mayBreak ? (mayBreak === 1 ? 'It was' : 'Each was') : `${reviewedCount} of them were`} reviewed and kept within this major version; the reason is given below.`;
}

/** The page's view of the changelog. Reviews apply to the unreleased section (the allow file is emptied at each release). */
export function changelogView(changelog: Changelog, reviews: readonly ChangelogReview[]): ChangelogSectionView[] {
  return changelog.sections.map((section) => {
    const map = section.title === 'Unreleased' ? reviews : [];
    const of = (classification: Change['classification']) =>
      section.groups.filter((g) => g.classification === classification).flatMap((g) => g.changes.map((c) => entryView(c, map)));
    const view = {
      title: section.title,
      id: section.title.toLowerCase().replace(/[^a-z0-9.]+/g, '-'),
      date: section.date,
      previous: section.previous ?? '',
      breaking: of('breaking'),
      unclassified: of('unclassified'),
      strict: of('warning'),
      additions: of('non-breaking'),
      annotations: of('annotation'),
    };
    const reviewed = [...view.breaking, ...view.unclassified, ...view.strict].filter((e) => e.reviewed !== '').length;
    return { ...view, headline: section.previous === undefined ? '' : changelogHeadline(section.counts, reviewed) };
  });
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

/** The tables headed by any of the given header rows (case-insensitive), in document order. */
function tablesWithHeader(markdown: string, ...headers: string[][]): MarkdownTable[] {
  const wanted = headers.map((header) => header.map((h) => h.toLowerCase()));
  return parseMarkdownTables(markdown).filter((t) =>
    wanted.some((want) => t.header.length === want.length && t.header.every((h, i) => h.toLowerCase() === want[i])),
  );
}

function cell(row: string[], index: number, where: string): string {
  const value = row[index];
  if (value === undefined) throw new Error(`${where}: missing column ${index + 1}`);
  return value;
}

export const ERROR_TABLE_HEADER = ['Code', 'HTTP', 'When', 'Details keys', 'What the client should do'];
export const DECISION_TABLE_HEADER = ['#', 'The original specification says', 'Decision', 'Reason', 'Anchor'];
/** A decisions table with no rows: no decisions page. */
const EMPTY_DECISIONS = `| ${DECISION_TABLE_HEADER.join(' | ')} |\n| ${DECISION_TABLE_HEADER.map(() => '---').join(' | ')} |\n`;
/** The second column's earlier name, still read (a decisions file written before D137). */
const LEGACY_DECISION_TABLE_HEADER = ['#', 'Seed says', 'Decision', 'Reason', 'Anchor'];

/** Reads the catalogue table of docs/errors.md. */
export function parseErrorCatalogue(markdown: string): ErrorEntry[] {
  const tables = tablesWithHeader(markdown, ERROR_TABLE_HEADER);
  if (tables.length !== 1)
    throw new Error(`errors.md: expected one table headed ${ERROR_TABLE_HEADER.join(' | ')}, found ${tables.length}`);
  return tables[0]!.rows.map((row) => {
    const where = `errors.md row ${row[0] ?? '?'}`;
    if (row.length !== ERROR_TABLE_HEADER.length)
      throw new Error(`${where}: expected ${ERROR_TABLE_HEADER.length} cells, got ${row.length}`);
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
  const tables = tablesWithHeader(markdown, DECISION_TABLE_HEADER, LEGACY_DECISION_TABLE_HEADER);
  if (tables.length === 0) throw new Error(`decisions.md: no table headed ${DECISION_TABLE_HEADER.join(' | ')}`);
  return tables.flatMap((t) =>
    t.rows.map((row) => {
      const where = `decisions.md row ${row[0] ?? '?'}`;
      if (row.length !== DECISION_TABLE_HEADER.length)
        throw new Error(`${where}: expected ${DECISION_TABLE_HEADER.length} cells, got ${row.length}`);
      return {
        id: cell(row, 0, where),
        group: t.heading,
        specSays: cell(row, 1, where),
        decision: cell(row, 2, where),
        reason: cell(row, 3, where),
        anchor: cell(row, 4, where),
      };
    }),
  );
}

// ---------------------------------------------------------------------------------------------------------------
// Events from the model

/**
 * Rows for an object's properties (in schema order, allOf parts merged); array-of-object properties add
 * `name[].property` rows. Read from the typed nodes (D479 the API reference reads typed schema nodes); a schema met
 * again on its own branch (a recursion) is not listed again.
 */
function fieldRows(
  node: SchemaNode | undefined,
  resolve: ResolveNamed,
  prefix = '',
  seen: ReadonlySet<SchemaNode> = new Set(),
): EventField[] {
  const target = derefNode(node, resolve);
  if (target === undefined || seen.has(target)) return [];
  const { properties, required } = objectShapeOf(target, resolve);
  const inner = new Set(seen).add(target);
  const rows: EventField[] = [];
  for (const [name, prop] of properties) {
    rows.push({
      name: `${prefix}${name}`,
      type: eventFieldType(prop, resolve),
      required: required.has(name),
      description: fieldDescription(prop, resolve),
    });
    const resolved = derefNode(prop, resolve);
    if (resolved?.kind === 'array' && resolved.items !== undefined && objectShapeOf(resolved.items, resolve).properties.size > 0) {
      rows.push(...fieldRows(resolved.items, resolve, `${prefix}${name}[].`, inner));
    }
  }
  return rows;
}

function eventSummary(event: WebhookEventModel): string {
  return event.description ?? event.summary ?? '';
}

const byEventName = (a: { name: string }, b: { name: string }): number => compareStrings(a.name, b.name);

/** Where an event is declared, one sentence per declaration (an AsyncAPI message only when nothing else declares it). */
function eventSources(event: WebhookEventModel): string[] {
  const sentences = event.origins.map((o) => {
    if (o.kind === 'webhook') return `Webhook \`${o.name}\`: a \`${o.method.toUpperCase()}\` to the webhook endpoints you register.`;
    if (o.kind === 'callback') {
      return `Callback \`${o.name}\` of \`${o.operationId}\` (\`${o.operationMethod.toUpperCase()} ${o.operationPath}\`): a \`${o.method.toUpperCase()}\` to \`${o.expression}\`.`;
    }
    return `AsyncAPI message \`${o.name}\`.`;
  });
  const openapi = sentences.filter((s) => !s.startsWith('AsyncAPI'));
  return openapi.length > 0 ? openapi : sentences;
}

/** The payload's media type and, when it is a component schema, its name. */
function payloadSentence(event: WebhookEventModel): string {
  const component = event.node.kind === 'ref' ? event.node.name : undefined;
  return `Payload: \`${event.mediaType}\`${component === undefined ? '' : `, schema \`${component}\``}.`;
}

/** The events the envelope describes: the discriminated union's members when there are some, else every event. */
function envelopeEvents(model: Pick<ApiModel, 'webhooks'>): WebhookEventModel[] {
  const union = model.webhooks.filter((e) => e.discriminatorValue !== undefined);
  return union.length > 0 ? union : model.webhooks;
}

/**
 * One entry per event of the model (sent in this version), then the planned ones, each sorted by name. An event's
 * fields are its `data` object's when it has one (Paygate, OpenAI), else its payload's own, less the envelope's.
 */
export function eventEntries(model: Pick<ApiModel, 'schemas' | 'webhooks' | 'plannedEvents'>): EventEntry[] {
  const resolve = namedNodes(model.schemas);
  const envelope = new Set(webhookGuide(model).envelope.map((f) => f.name));
  const inEnvelope = new Set(envelopeEvents(model));
  const sent = model.webhooks.map((event): EventEntry => {
    const data = objectShapeOf(event.node, resolve).properties.get('data');
    const dataObject = data !== undefined && objectShapeOf(data, resolve).properties.size > 0;
    return {
      name: event.eventType,
      category: event.category ?? '',
      status: 'emitted',
      summary: eventSummary(event),
      eventTimeFormat: event.formats.find((f) => f.field === 'event_time')?.format ?? '',
      fields: dataObject
        ? fieldRows(data, resolve)
        : fieldRows(event.node, resolve).filter((f) => !inEnvelope.has(event) || !envelope.has(f.name)),
      fieldsOf: dataObject ? 'data' : 'payload',
      example: event.examples[0] ?? null,
      sources: eventSources(event),
      payload: payloadSentence(event),
      discriminated: event.discriminatorValue !== undefined,
    };
  });
  const planned = model.plannedEvents.map(
    (e): EventEntry => ({
      name: e.eventType,
      category: e.category ?? '',
      status: 'future',
      summary: e.summary,
      eventTimeFormat: '',
      fields: [],
      example: null,
    }),
  );
  // sorted by name (the reader scans for one event; the spec's order is the author's), sent ones first
  return [...sent.sort(byEventName), ...planned.sort(byEventName)];
}

/**
 * The envelope (top-level fields every event of the union shares, described by the first one's schema; every event's
 * when there is no union), the signature headers and the discriminator.
 */
export function webhookGuide(model: Pick<ApiModel, 'schemas' | 'webhooks'> & { webhookDiscriminator?: string | undefined }): WebhookGuide {
  const resolve = namedNodes(model.schemas);
  const events = envelopeEvents(model);
  const first = events[0];
  if (first === undefined) return { envelope: [], headers: [], discriminator: model.webhookDiscriminator };
  const shared = (name: string) => events.every((e) => objectShapeOf(e.node, resolve).properties.has(name));
  return {
    envelope:
      events.length < 2 && first.discriminatorValue === undefined
        ? []
        : fieldRows(first.node, resolve).filter((f) => !f.name.includes('.') && shared(f.name)),
    headers: first.headers.map((h) => ({ name: h.name, description: h.description ?? '' })),
    discriminator: model.webhookDiscriminator,
  };
}

/** Whether the spec's errors are the `{success: false, error: {code, message}}` envelope (a component schema of that shape). */
export function hasErrorEnvelope(model: Pick<ApiModel, 'schemas'>): boolean {
  const resolve = namedNodes(model.schemas);
  return model.schemas.some((s) => {
    const { properties } = objectShapeOf(s.node, resolve);
    const fields = objectShapeOf(properties.get('error'), resolve).properties;
    return properties.has('success') && fields.has('code') && fields.has('message');
  });
}

function deliveryPolicy(raw: unknown): string[] {
  return Array.isArray(raw) ? raw.filter((line): line is string => typeof line === 'string') : [];
}

/**
 * A catalogue the user gives (docs/errors.md, `--errors FILE`) and the spec must name the same error codes; the refusal
 * names `file` (the spec) and both differences.
 */
export function checkErrorCatalogue(errors: readonly ErrorEntry[], specCodes: readonly string[], file = 'the spec'): void {
  if (specCodes.length === 0) return;
  const inSpec = new Set(specCodes);
  const inDocs = new Set(errors.map((e) => e.code));
  const missing = [...inDocs].filter((c) => !inSpec.has(c));
  const extra = [...inSpec].filter((c) => !inDocs.has(c));
  if (missing.length > 0 || extra.length > 0) {
    throw new UnsupportedSpecError(
      file,
      '',
      `error catalogue drift: the error catalogue and the spec name different error codes: only in the catalogue [${missing.join(', ')}]; only in the spec [${extra.join(', ')}].`,
      "make the catalogue's table (`paygate docs --errors FILE`, default docs/errors.md) list exactly the spec's codes, or build the docs without a catalogue: the errors page then comes from the spec's own error responses.",
    );
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Emitters

/** The human sources of the site besides the spec. */
export interface DocsSources {
  /**
   * The error catalogue (docs/errors.md's table), when the user gives one: the errors page is its table, checked
   * against the spec's error codes. Undefined: the page comes from the spec's own error responses (D203 error catalogue check only when given).
   */
  errorsMarkdown: string | undefined;
  /** The decisions as a Markdown table (`paygate docs --decisions FILE`); `decisions` wins when both are given. */
  decisionsMarkdown?: string | undefined;
  /** The decisions read from a folder of records (`paygate docs --decisions DIR`, default docs/decisions/; D450). */
  decisions?: readonly DecisionEntry[] | undefined;
  templates: DocsTemplates;
  /** Computed by scripts/docs.ts from openapi/released/ (generators/src/diff/changelog.ts); no page without it. */
  changelog?: Changelog | undefined;
  /** The allow file's entries beside the released contracts: the reviewed breaking changes of the unreleased section. */
  changelogReviewed?: readonly ChangelogReview[] | undefined;
}

const DOCS_TEMPLATE_NAMES = ['layout', 'index', 'events', 'errors', 'decisions', 'changelog'] as const;

/** The site's scripts in templates/docs/assets/. */
export const DOCS_ASSETS = ['site.js', 'try-it.js'] as const;

/** Reads templates/docs/*.hbs, the reference's templates/docs/reference/*.hbs and the scripts of templates/docs/assets/. */
export function readDocsTemplates(templatesDir: string): DocsTemplates {
  const read = (name: string) => readFileSync(path.join(templatesDir, 'docs', `${name}.hbs`), 'utf8');
  const pages = Object.fromEntries(DOCS_TEMPLATE_NAMES.map((n) => [n, read(n)])) as unknown as DocsTemplates;
  return {
    ...pages,
    reference: {
      operation: read('reference/operation'),
      operations: read('reference/operations'),
      schemas: read('reference/schemas'),
      fields: read('reference/fields'),
      diagrams: read('reference/diagrams'),
    },
    assets: Object.fromEntries(DOCS_ASSETS.map((file) => [file, readFileSync(path.join(templatesDir, 'docs', 'assets', file), 'utf8')])),
  };
}

/** The pages' input from the model and the human sources (the same for the pages and the reference emitters). */
function pagesInput(ctx: EmitContext, sources: DocsSources): DocsPagesInput {
  // D203: the catalogue check only when the user gives a catalogue; else the spec's own words
  const errors = sources.errorsMarkdown === undefined ? [] : parseErrorCatalogue(sources.errorsMarkdown);
  if (sources.errorsMarkdown !== undefined) checkErrorCatalogue(errors, ctx.model.errorCodes, openapiFileOf(ctx.model.source));
  return {
    api: {
      title: ctx.model.title,
      version: ctx.model.version,
      name: clientBaseName(ctx.model.title, ctx.model.clientName),
      errorEnvelope: hasErrorEnvelope(ctx.model),
      delivery: deliveryPolicy(ctx.model.extensions['x-webhook-delivery']),
    },
    errors,
    specErrors: sources.errorsMarkdown === undefined ? specErrorsView(ctx.model) : undefined,
    decisions: sources.decisions !== undefined ? [...sources.decisions] : parseDecisions(sources.decisionsMarkdown ?? EMPTY_DECISIONS),
    events: eventEntries(ctx.model),
    webhooks: webhookGuide(ctx.model),
    templates: sources.templates,
    changelog: sources.changelog,
    changelogReviewed: sources.changelogReviewed,
    redocScript: REDOC_SCRIPT,
    // the model keeps every component schema as written (x-state-machine included) and the document's extensions
    diagrams: diagramsView({
      components: { schemas: Object.fromEntries(ctx.model.schemas.map((s) => [s.name, s.schema])) },
      'x-webhook-retry-schedule': ctx.model.extensions['x-webhook-retry-schedule'],
    }),
  };
}

/** The pages (model + markdown sources) and the embedded document (openapi.json / openapi.js) of the site. */
export function createDocsEmitters(sources: DocsSources): Emitter[] {
  const pages: Emitter = {
    name: 'docs/pages',
    target: 'docs',
    emit(ctx: EmitContext) {
      const files = renderDocsPages(pagesInput(ctx, sources));
      return [...files].map(([file, contents]) => ({ path: `${ctx.out.docs}/${file}`, contents }));
    },
  };
  const apiDocument: DocumentEmitter = {
    name: 'docs/api-document',
    target: 'docs',
    readsDocument: true,
    // The document as the site serves it, and its static rendering (D388 light reference pages without Redoc): the docs' copy carries the generated samples
    // (x-codeSamples: Redoc shows them with a Copy button); the operation pages, the schemas and the search index
    // render the document's own examples and schemas, which the model does not keep.
    emit(ctx: DocumentEmitContext) {
      const document = ctx.document;
      const samples = operationSamples(ctx.model, document);
      const files = new Map([
        ...renderSpecFiles(withCodeSamples(document, samples)),
        ...renderReferencePages(pagesInput(ctx, sources), { model: ctx.model, document, samples }),
      ]);
      return [...files].map(([file, contents]) => ({ path: `${ctx.out.docs}/${file}`, contents }));
    },
  };
  return [pages, apiDocument];
}
