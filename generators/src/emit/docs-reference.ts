/**
 * The light reference (D388 "Deep links without Redoc"): one pre-rendered HTML page per operation
 * (`operation-<id>.html`), a list of the operations by tag (`operations.html`) and the component schemas
 * (`schemas.html`), rendered from the bundled document at build time. A deep link shows its content as soon as the
 * HTML arrives: no framework, no 300 KB document to parse first, the only scripts small site files loaded `defer`.
 * Redoc's full reference (index.html) stays for readers who want its three-panel view.
 *
 * Each operation page carries its samples (emit/docs-samples.ts) with Copy buttons, and a try-it form that stays hidden
 * unless the page is served by a sandbox gateway (assets/try-it.js).
 *
 * Pure and deterministic: the view models are built here, rendered by templates/docs/reference/*.hbs. Schemas (field
 * tables, type labels: docs-schema-labels.ts) are read from the model's typed nodes (D479 the API reference reads typed
 * schema nodes); only the response examples are read from the bundled document.
 */
import { createHash } from 'node:crypto';
import { RefResolver } from '../model/ref-resolver.js';
import type { ApiModel, OperationModel } from '../model/types.js';
import { compareStrings } from '../util/sorted.js';
import type { OperationSamples } from './docs-samples.js';
import { isObj } from '../util/json.js';
import { derefNode, namedNodes, objectShapeOf, type ResolveNamed } from '../model/schema/shape.js';
import type { SchemaNode } from '../model/schema/types.js';
import { schemaDescription, typeLabel } from './docs-schema-labels.js';

type Obj = Record<string, unknown>;

/**
 * The most characters of an operationId an operation page's name keeps: file systems take at most 255 bytes per name
 * (ext4, APFS, NTFS), and Microsoft Graph's generated ids run past 250 characters
 * (`identityGovernance-entitlementManagement-accessPackageAssignments-...-CreateAccessPackageResourceRoles`), which
 * failed `paygate docs` with ENAMETOOLONG.
 */
export const PAGE_ID_CHARS = 200;

/**
 * An operation's page: a file name only letters, digits, `-` and `_` make (operationIds can hold `.` or `/`); an id
 * longer than PAGE_ID_CHARS keeps its first characters and a digest of the whole id, so pages stay distinct.
 */
export function operationPage(operationId: string): string {
  const safe = operationId.replace(/[^A-Za-z0-9_-]+/g, '-');
  if (safe.length <= PAGE_ID_CHARS) return `operation-${safe}.html`;
  const digest = createHash('sha256').update(operationId).digest('hex').slice(0, 12);
  return `operation-${safe.slice(0, PAGE_ID_CHARS - digest.length - 1)}-${digest}.html`;
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** A link target a description may use: relative, a fragment, or http(s); anything else (javascript:) is shown as text. */
const safeHref = (href: string) => /^(https?:\/\/|#|[A-Za-z0-9_./-]+(\.html)?(#[\w.-]*)?$)/.test(href) && !/^javascript:/i.test(href);

/** Inline Markdown of descriptions: `code`, **bold**, [links](href); everything else escaped. */
function inlineMarkdown(text: string): string {
  const parts = text.split('`');
  return parts
    .map((part, i) => {
      if (i % 2 === 1 && i < parts.length - 1) return `<code>${escapeHtml(part)}</code>`;
      let html = escapeHtml(i % 2 === 1 ? `\`${part}` : part);
      html = html.replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>');
      html = html.replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, (whole, label: string, href: string) => {
        const raw = href.replace(/&amp;/g, '&');
        return safeHref(raw) ? `<a href="${escapeHtml(raw)}">${label}</a>` : whole;
      });
      return html;
    })
    .join('');
}

/**
 * A description's Markdown as HTML: paragraphs, `-`/`*` lists and inline marks. Not a full Markdown renderer (no
 * tables, headings or HTML pass-through): descriptions are prose, and everything they hold is escaped first.
 */
export function markdownHtml(text: string | undefined): string {
  if (text === undefined || text.trim() === '') return '';
  const blocks = text.replace(/\r\n?/g, '\n').split(/\n\s*\n/);
  return blocks
    .map((block) => {
      const lines = block.split('\n').filter((l) => l.trim() !== '');
      if (lines.length > 0 && lines.every((l) => /^\s*([-*]|\d+\.)\s+/.test(l) || /^\s{2,}\S/.test(l))) {
        const items: string[] = [];
        for (const line of lines) {
          if (/^\s*([-*]|\d+\.)\s+/.test(line)) items.push(line.replace(/^\s*([-*]|\d+\.)\s+/, ''));
          else if (items.length > 0) items[items.length - 1] += ` ${line.trim()}`;
        }
        return `<ul>${items.map((i) => `<li>${inlineMarkdown(i)}</li>`).join('')}</ul>`;
      }
      return `<p>${inlineMarkdown(lines.map((l) => l.trim()).join(' '))}</p>`;
    })
    .join('\n');
}

export interface FieldRow {
  name: string;
  /** Nesting depth (0: top level), for indentation. */
  depth: number;
  type: string;
  required: boolean;
  descriptionHtml: string;
}

/** Limits of the field tables: a Stripe-sized schema nests deep and wide; the page lists the first levels. */
const MAX_DEPTH = 3;
const MAX_ROWS = 200;

/**
 * The rows of an object schema's fields (its allOf parts merged), nested objects and arrays of objects indented below
 * their field; read from the typed nodes (D475 typed schema model with one walker, a node beside every raw schema), a
 * schema met again on its own branch (a recursion) is not listed again.
 */
export function fieldRows(
  node: SchemaNode | undefined,
  resolve: ResolveNamed,
  depth = 0,
  prefix = '',
  seen: ReadonlySet<SchemaNode> = new Set(),
  rows: FieldRow[] = [],
): FieldRow[] {
  const target = derefNode(node, resolve);
  if (target === undefined || seen.has(target) || depth > MAX_DEPTH) return rows;
  const { properties, required } = objectShapeOf(target, resolve);
  const inner = new Set(seen).add(target);
  for (const [name, prop] of properties) {
    if (rows.length >= MAX_ROWS) break;
    rows.push({
      name: `${prefix}${name}`,
      depth,
      type: typeLabel(prop, resolve),
      required: required.has(name),
      descriptionHtml: markdownHtml(schemaDescription(prop, resolve)),
    });
    const resolved = derefNode(prop, resolve);
    const items = resolved?.kind === 'array' ? derefNode(resolved.items, resolve) : undefined;
    const nested = items ?? resolved;
    if (objectShapeOf(nested, resolve).properties.size > 0) {
      fieldRows(nested, resolve, depth + 1, `${prefix}${name}${nested === items ? '[]' : ''}.`, inner, rows);
    }
  }
  return rows;
}

export interface ParameterView {
  name: string;
  in: string;
  required: boolean;
  type: string;
  descriptionHtml: string;
}

export interface ResponseView {
  status: string;
  descriptionHtml: string;
  mediaType: string;
  success: boolean;
  rows: FieldRow[];
  /** The JSON example (pretty), '' without one. */
  example: string;
  /** The earlier status whose body has the same schema ('' when none): its fields are not repeated. */
  sameAs: string;
}

export interface TryItField {
  /** Form control name: `path.order_id`, `query.page`, `header.X-Merchant-ID`. */
  key: string;
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  value: string;
  id: string;
}

export interface OperationView {
  id: string;
  file: string;
  method: string;
  methodLower: string;
  path: string;
  title: string;
  summary: string;
  tag: string;
  deprecated: boolean;
  descriptionHtml: string;
  security: { names: string }[];
  parameters: ParameterView[];
  body: { mediaType: string; required: boolean; rows: FieldRow[]; descriptionHtml: string } | null;
  responses: ResponseView[];
  samples: { label: string; lang: string; source: string; id: string }[];
  tryIt: {
    fields: TryItField[];
    /** The JSON body the form starts with ('' when the operation sends none, or not JSON). */
    body: string;
    hasBody: boolean;
    /** Why a non-JSON body cannot be sent from the form ('' when it can). */
    unsupported: string;
  };
}

function parameterViews(resolve: ResolveNamed, op: OperationModel): ParameterView[] {
  return op.parameterList.map((p) => ({
    name: p.name,
    in: p.in,
    required: p.required,
    // the parameter's schema, or its content's (ParameterModel.node)
    type: typeLabel(p.node, resolve),
    descriptionHtml: markdownHtml(p.description),
  }));
}

function pickMedia<T extends { mediaType: string }>(content: readonly T[]): T | undefined {
  return content.find((c) => /json/.test(c.mediaType)) ?? content[0];
}

/** The response's example as written (media `example`, else the first of `examples`), pretty JSON. */
function responseExample(resolver: RefResolver, document: Obj, op: OperationModel, status: string, mediaType: string): string {
  const paths = isObj(document.paths) ? document.paths : {};
  const item = resolver.deref<unknown>(paths[op.path]);
  const operation = isObj(item) ? item[op.method] : undefined;
  const responses = isObj(operation) && isObj(operation.responses) ? operation.responses : {};
  const response = resolver.deref<unknown>(responses[status]);
  const content = isObj(response) && isObj(response.content) ? response.content : {};
  const media = resolver.deref<unknown>(content[mediaType]);
  if (!isObj(media)) return '';
  let example = media.example;
  if (example === undefined && isObj(media.examples)) {
    const first = resolver.deref<unknown>(Object.values(media.examples)[0]);
    example = isObj(first) ? first.value : undefined;
  }
  if (example === undefined) return '';
  return typeof example === 'string' ? example : JSON.stringify(example, null, 2);
}

const scalar = (v: unknown) => (v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v));

function tryItView(op: OperationModel, samples: OperationSamples | undefined): OperationView['tryIt'] {
  const fields: TryItField[] = [];
  const values = samples?.values;
  for (const p of op.parameterList) {
    if (p.in === 'cookie') continue;
    // the browser sets these itself; the key is made fresh per send
    if (p.in === 'header' && /^(content-type|accept|idempotency-key)$/i.test(p.name)) continue;
    fields.push({
      key: `${p.in}.${p.name}`,
      name: p.name,
      in: p.in,
      required: p.required,
      // path values start as the samples' (the reader replaces an example id with one of theirs)
      value: p.in === 'path' ? scalar(values?.parameters.find((v) => v.in === p.in && v.name === p.name)?.value) : '',
      id: `try-${p.in}-${p.name.replace(/[^A-Za-z0-9_-]/g, '-')}`,
    });
  }
  const media = op.requestBody === undefined ? undefined : pickMedia(op.requestBody.content);
  const json = media !== undefined && /json/.test(media.mediaType);
  return {
    fields,
    body: json && values?.body !== undefined ? JSON.stringify(values.body, null, 2) : '',
    hasBody: json,
    unsupported: media !== undefined && !json ? `This operation takes ${media.mediaType}; send it with the curl sample.` : '',
  };
}

/**
 * An error body shared by many statuses (Paygate's envelope answers ten of them) is listed once: later statuses with
 * the same schema point to the first. Pages stay short, so a deep link renders fast on a phone.
 */
function sameBodies(responses: (ResponseView & { schemaKey: string })[]): ResponseView[] {
  const first = new Map<string, string>();
  return responses.map(({ schemaKey, ...r }) => {
    const earlier = schemaKey === '' || r.rows.length === 0 ? undefined : first.get(schemaKey);
    if (schemaKey !== '' && earlier === undefined) first.set(schemaKey, r.status);
    return earlier === undefined ? r : { ...r, rows: [], sameAs: earlier };
  });
}

/** The view of every operation of the model, in model order (sorted by path, then method). */
export function operationViews(model: ApiModel, document: Readonly<Obj>, samples: readonly OperationSamples[]): OperationView[] {
  const resolver = new RefResolver(document as Obj);
  const resolve = namedNodes(model.schemas);
  const byId = new Map(samples.map((s) => [s.operationId, s]));
  return model.operations.map((op) => {
    const media = op.requestBody === undefined ? undefined : pickMedia(op.requestBody.content);
    const opSamples = byId.get(op.operationId);
    return {
      id: op.operationId,
      file: operationPage(op.operationId),
      method: op.method.toUpperCase(),
      methodLower: op.method,
      path: op.path,
      title: op.summary ?? `${op.method.toUpperCase()} ${op.path}`,
      summary: op.summary ?? '',
      tag: op.tags[0] ?? 'Other',
      deprecated: op.deprecated,
      descriptionHtml: markdownHtml(op.description),
      security: op.security.map((alt) => ({ names: alt.map((r) => r.scheme).join(' + ') })),
      parameters: parameterViews(resolve, op),
      body:
        media === undefined || op.requestBody === undefined
          ? null
          : {
              mediaType: media.mediaType,
              required: op.requestBody.required,
              rows: fieldRows(media.node, resolve),
              descriptionHtml: markdownHtml(op.requestBody.description),
            },
      responses: sameBodies(
        op.responses.map((r) => {
          const m = pickMedia(r.content);
          return {
            status: r.status,
            descriptionHtml: markdownHtml(r.description),
            mediaType: m?.mediaType ?? '',
            success: /^2/.test(r.status),
            rows: m === undefined ? [] : fieldRows(m.node, resolve),
            example: m === undefined ? '' : responseExample(resolver, document as Obj, op, r.status, m.mediaType),
            sameAs: '',
            schemaKey: m === undefined ? '' : `${m.mediaType} ${JSON.stringify(m.schema)}`,
          };
        }),
      ),
      samples: (opSamples?.samples ?? []).map((s, i) => ({ ...s, id: `sample-${i}` })),
      tryIt: tryItView(op, opSamples),
    };
  });
}

export interface TagView {
  name: string;
  operations: { id: string; file: string; method: string; path: string; title: string; deprecated: boolean }[];
}

/** Operations grouped by their first tag, in the spec's tag order, then untagged ones. */
export function tagViews(model: Pick<ApiModel, 'tags'>, operations: readonly OperationView[]): TagView[] {
  const order = new Map(model.tags.map((t, i) => [t.name, i]));
  const groups = new Map<string, TagView>();
  for (const op of operations) {
    const group = groups.get(op.tag) ?? { name: op.tag, operations: [] };
    group.operations.push({ id: op.id, file: op.file, method: op.method, path: op.path, title: op.title, deprecated: op.deprecated });
    groups.set(op.tag, group);
  }
  return [...groups.values()].sort(
    (a, b) =>
      (order.get(a.name) ?? Number.MAX_SAFE_INTEGER) - (order.get(b.name) ?? Number.MAX_SAFE_INTEGER) || compareStrings(a.name, b.name),
  );
}

export interface SchemaView {
  name: string;
  anchor: string;
  type: string;
  descriptionHtml: string;
  rows: FieldRow[];
}

/** Every component schema, by name. */
export function schemaViews(model: Pick<ApiModel, 'schemas'>): SchemaView[] {
  const resolve = namedNodes(model.schemas);
  return [...model.schemas]
    .sort((a, b) => compareStrings(a.name, b.name))
    .map((s) => ({
      name: s.name,
      anchor: schemaAnchor(s.name),
      type: typeLabel(s.node, resolve),
      descriptionHtml: markdownHtml(s.node.annotations.description),
      rows: fieldRows(s.node, resolve),
    }));
}

export const schemaAnchor = (name: string) => `schema-${name.replace(/[^A-Za-z0-9_-]+/g, '-')}`;
