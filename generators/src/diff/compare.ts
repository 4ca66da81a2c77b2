/**
 * The breaking-change engine: api-smart-diff (decision D53) compares two OpenAPI documents and classifies each change
 * by where it sits (request or response, through `$ref`s); this module adds what it does not cover, in the reader's
 * direction:
 *
 * - webhooks (OpenAPI 3.1 `webhooks`) and AsyncAPI event payloads are data the merchant RECEIVES, so they are
 *   compared as response bodies of synthetic operations (api-smart-diff skips `webhooks` and reads AsyncAPI 2 only);
 * - a response/event property that disappears, or a response type that admits more (`null`, another type), breaks
 *   clients that read it (api-smart-diff calls an optional field's removal non-breaking);
 * - security requirements (api-smart-diff leaves them unclassified);
 * - `deprecated` is an annotation; anything still unclassified is treated as breaking, so the gate errs on the safe side.
 */
import { apiDiff, type Diff } from 'api-smart-diff';
import type { Change, Classification, ContractSnapshot, SpecDocument } from './types.js';

type Segment = string | number;
type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Path prefixes of the synthetic operations that carry received payloads. */
const WEBHOOK_PREFIX = '/~webhook/';
const EVENT_PREFIX = '/~event/';
const RECEIVED_STATUS = '200';
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** Where a synthetic path came from, so its changes are reported at the real location. */
interface Origin {
  document: SpecDocument;
  /** Real path of the synthetic operation's payload container (its `content` or its schema). */
  base: Segment[];
  /** How many synthetic segments the base replaces (`paths`, key, method, `responses`, status[, `content`, type, `schema`]). */
  depth: number;
  label: string;
}

interface Comparable {
  document: Obj;
  origins: Map<string, Origin>;
}

/** The OpenAPI document with webhooks and events moved into responses of synthetic paths. */
function comparable(snapshot: ContractSnapshot): Comparable {
  const document = structuredClone(snapshot.openapi);
  const paths: Obj = isObj(document.paths) ? { ...document.paths } : {};
  const origins = new Map<string, Origin>();
  const webhooks = isObj(document.webhooks) ? document.webhooks : {};
  for (const [name, item] of Object.entries(webhooks)) {
    if (!isObj(item)) continue;
    const method = HTTP_METHODS.find((m) => isObj(item[m])) ?? 'post';
    const operation = isObj(item[method]) ? item[method] : {};
    const body = isObj(operation.requestBody) ? operation.requestBody : {};
    const key = `${WEBHOOK_PREFIX}${name}`;
    paths[key] = { get: { responses: { [RECEIVED_STATUS]: { description: '', ...(body.content === undefined ? {} : { content: body.content }) } } } };
    origins.set(key, { document: 'openapi', base: ['webhooks', name, method, 'requestBody'], depth: 5, label: `webhook ${name}` });
  }
  delete document.webhooks;
  for (const [id, payload] of Object.entries(snapshot.events ?? {})) {
    const key = `${EVENT_PREFIX}${id}`;
    paths[key] = { get: { responses: { [RECEIVED_STATUS]: { description: '', content: { 'application/json': { schema: payload ?? {} } } } } } };
    origins.set(key, { document: 'asyncapi', base: ['components', 'messages', id, 'payload'], depth: 8, label: `event ${id}` });
  }
  document.paths = paths;
  return { document, origins };
}

export function toPointer(path: readonly Segment[]): string {
  return path.map((s) => `/${String(s).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

function fromPointer(ref: string): Segment[] {
  return ref
    .replace(/^#/, '')
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** Follows `path` through `doc`, jumping to the target of every local `$ref` met: the concrete path of the node. */
export function concretePath(doc: unknown, path: readonly Segment[]): Segment[] {
  let node: unknown = doc;
  let out: Segment[] = [];
  for (const segment of path) {
    for (let hops = 0; isObj(node) && typeof node.$ref === 'string' && node.$ref.startsWith('#/') && hops < 32; hops++) {
      out = fromPointer(node.$ref);
      node = out.reduce<unknown>((n, s) => (isObj(n) || Array.isArray(n) ? (n as Record<string, unknown>)[String(s)] : undefined), doc);
    }
    node = isObj(node) || Array.isArray(node) ? (node as Record<string, unknown>)[String(segment)] : undefined;
    out.push(segment);
  }
  return out;
}

interface Located {
  document: SpecDocument;
  path: Segment[];
  /** `POST /orders`, `webhook PAYMENT_FAILED`, `event PaymentFailed`, `security`. */
  where: string;
  synthetic: boolean;
}

function locate(path: readonly Segment[], origins: Map<string, Origin>): Located {
  if (path[0] === 'paths' && typeof path[1] === 'string') {
    const origin = origins.get(path[1]);
    if (origin) {
      // paths, key, get, responses, 200, content, type, schema: a shorter path is the payload itself, or the event.
      const rest = path.slice(origin.depth);
      const real = path.length >= origin.depth ? [...origin.base, ...rest] : origin.base.slice(0, origin.document === 'asyncapi' ? 3 : 2);
      return { document: origin.document, path: real, where: origin.label, synthetic: true };
    }
    const method = typeof path[2] === 'string' && HTTP_METHODS.includes(path[2]) ? `${path[2].toUpperCase()} ` : '';
    return { document: 'openapi', path: [...path], where: `${method}${path[1]}`, synthetic: false };
  }
  return { document: 'openapi', path: [...path], where: path.slice(0, 2).join(' '), synthetic: false };
}

const VERBS: Record<Diff['action'], string> = { add: 'added', remove: 'removed', replace: 'changed', rename: 'renamed' };

/** `<subject>-<verb>` from the real path, e.g. `property-removed`. */
export function kindOf(path: readonly Segment[], action: Diff['action'], document: SpecDocument): string {
  const verb = VERBS[action];
  const last = path[path.length - 1];
  const parent = path[path.length - 2];
  let subject: string;
  if (document === 'asyncapi' && path.length === 3 && path[1] === 'messages') subject = 'event';
  else if (path[0] === 'webhooks' && path.length === 2) subject = 'webhook';
  else if (path[0] === 'paths' && path.length === 2) subject = 'path';
  else if (path[0] === 'paths' && path.length === 3) subject = 'operation';
  else if (path.includes('security') && path[0] !== 'components') subject = 'security-requirement';
  else if (parent === 'properties') subject = 'property';
  else if (parent === 'enum') subject = 'enum-value';
  else if (parent === 'required') subject = 'required-property';
  else if (parent === 'parameters') subject = 'parameter';
  else if (parent === 'responses') subject = 'response';
  else if (parent === 'content') subject = 'media-type';
  else if (typeof last === 'number') subject = `${String(parent)}-item`;
  else subject = String(last);
  return `${subject}-${verb}`;
}

type Direction = 'request' | 'response' | 'none';

function directionOf(path: readonly Segment[]): Direction {
  if (path.includes('responses')) return 'response';
  if (path.includes('requestBody') || path.includes('parameters')) return 'request';
  return 'none';
}

function typeSet(value: unknown): Set<string> {
  if (Array.isArray(value)) return new Set(value.map(String));
  return typeof value === 'string' ? new Set([value]) : new Set();
}

interface Verdict {
  classification: Classification;
  /** Why this module overrode api-smart-diff, appended to the message. */
  reason?: string;
}

/** api-smart-diff's classification, corrected where a reader of the data would break. */
function classify(diff: Diff, path: readonly Segment[], direction: Direction, hadSecurity: boolean): Verdict {
  const last = path[path.length - 1];
  const parent = path[path.length - 2];
  const securityAt = path.indexOf('security');
  if (securityAt >= 0 && path[0] !== 'components') {
    const depth = path.length - securityAt;
    if (depth === 3) {
      return diff.action === 'add'
        ? { classification: 'breaking', reason: 'clients must now also send this credential' }
        : { classification: 'non-breaking', reason: 'one credential fewer is required' };
    }
    if (depth === 2 && diff.action === 'add') {
      return hadSecurity
        ? { classification: 'non-breaking', reason: 'a new alternative way to authenticate' }
        : { classification: 'breaking', reason: 'authentication is now required' };
    }
    if (depth === 2 && diff.action === 'remove') return { classification: 'breaking', reason: 'clients authenticating this way are refused' };
    if (depth === 1) return { classification: diff.action === 'add' ? 'breaking' : 'non-breaking', reason: 'security requirements changed' };
  }
  if (diff.type === 'deprecated') return { classification: 'annotation', reason: 'a deprecation notice; it still works' };
  if (direction === 'response') {
    if (diff.action === 'remove' && parent === 'properties' && diff.type !== 'breaking') {
      return { classification: 'breaking', reason: 'clients reading this field get nothing' };
    }
    if (diff.action === 'replace' && last === 'type') {
      const before = typeSet(diff.before);
      const after = typeSet(diff.after);
      if ([...after].some((t) => !before.has(t))) return { classification: 'breaking', reason: 'clients reading this field meet a type they do not expect' };
    }
    if (last === 'nullable' && diff.after === true) return { classification: 'breaking', reason: 'clients reading this field may now get null' };
  }
  if (diff.type === 'unclassified') return { classification: 'breaking', reason: 'not classified by api-smart-diff: treated as breaking, review it' };
  return { classification: diff.type };
}

function describe(diff: Diff, located: Located, path: readonly Segment[]): string {
  let text = diff.description ?? `[${VERBS[diff.action][0]!.toUpperCase()}${VERBS[diff.action].slice(1)}] ${String(path[path.length - 1])}`;
  if (located.synthetic) text = text.replace(/ in Response \d+ content \([^)]*\)/, ' in the payload').replace(/Response \d+$/, 'payload');
  return text;
}

/** Every change from `before` to `after`, api-smart-diff's plus this module's rules, in a stable order. */
export function compareContracts(before: ContractSnapshot, after: ContractSnapshot): Change[] {
  const a = comparable(before);
  const b = comparable(after);
  const origins = new Map([...a.origins, ...b.origins]);
  const hadSecurity = Array.isArray(before.openapi.security) && before.openapi.security.length > 0;
  const changes = new Map<string, Change>();
  for (const diff of apiDiff(a.document, b.document)) {
    const path = diff.path.map((s) => (typeof s === 'number' ? s : String(s)));
    // Reusable components are reported where they are used (paths, webhooks, events), with the direction known there.
    if (path[0] === 'components' && path[1] !== 'securitySchemes') continue;
    const located = locate(path, origins);
    const source = diff.action === 'remove' ? a.document : b.document;
    const concrete = locate(concretePath(source, path), origins);
    const verdict = classify(diff, located.path, directionOf(path), hadSecurity);
    const text = describe(diff, located, located.path);
    const change: Change = {
      classification: verdict.classification,
      kind: kindOf(located.path, diff.action, located.document),
      document: located.document,
      pointer: toPointer(concrete.path),
      location: toPointer(located.path),
      message: `${located.where}: ${text}${verdict.reason === undefined ? '' : ` (${verdict.reason})`}`,
      ...(diff.before === undefined ? {} : { before: diff.before }),
      ...(diff.after === undefined ? {} : { after: diff.after }),
    };
    changes.set(`${change.document}|${change.location}|${change.kind}`, change);
  }
  return [...changes.values()].sort(
    (x, y) => rank(x.classification) - rank(y.classification) || (x.location < y.location ? -1 : x.location > y.location ? 1 : 0) || (x.kind < y.kind ? -1 : 1),
  );
}

function rank(c: Classification): number {
  return c === 'breaking' ? 0 : c === 'non-breaking' ? 1 : 2;
}
