/**
 * The breaking-change engine: api-smart-diff (decision D53) compares two OpenAPI documents and classifies each change
 * by where it sits (request or response, through `$ref`s); this module adds what it does not cover, in the reader's
 * direction:
 *
 * - webhooks (OpenAPI 3.1 `webhooks`), operation callbacks and AsyncAPI event payloads are data the merchant
 *   RECEIVES, so they are compared as response bodies of synthetic operations (api-smart-diff skips `webhooks`,
 *   judges callback bodies as requests and reads AsyncAPI 2 only);
 * - a response/event property that disappears, a response type that admits more (`null`, another type) or a changed
 *   pattern breaks clients that read it (api-smart-diff calls an optional field's removal non-breaking);
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
const CALLBACK_PREFIX = '/~callback/';
const EVENT_PREFIX = '/~event/';
const RECEIVED_STATUS = '200';
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** Where a synthetic path came from, so its changes are reported at the real location. */
interface Origin {
  document: SpecDocument;
  /** Real path of the synthetic operation's payload container (its `content` or its schema). */
  base: Segment[];
  /** Real path of the whole webhook, callback operation or message: where its removal or addition is reported. */
  whole: Segment[];
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
    origins.set(key, { document: 'openapi', base: ['webhooks', name, method, 'requestBody'], whole: ['webhooks', name], depth: 5, label: `webhook ${name}` });
  }
  delete document.webhooks;
  moveCallbacks(paths, origins);
  for (const event of snapshot.events ?? []) {
    const key = `${EVENT_PREFIX}${event.channel}/${event.message}`;
    paths[key] = { get: { responses: { [RECEIVED_STATUS]: { description: '', content: { 'application/json': { schema: event.payload ?? {} } } } } } };
    const whole = ['channels', event.channel, 'messages', event.message];
    origins.set(key, { document: 'asyncapi', base: [...whole, 'payload'], whole, depth: 8, label: `event ${event.name} (channel ${event.channel})` });
  }
  document.paths = paths;
  return { document, origins };
}

/**
 * An operation's `callbacks` carry requests the gateway (or the customer's browser, signed by it) sends to the
 * merchant: the merchant reads their bodies, so they move to synthetic response bodies like webhooks.
 */
function moveCallbacks(paths: Obj, origins: Map<string, Origin>): void {
  for (const [pathKey, item] of Object.entries(paths)) {
    if (!isObj(item)) continue;
    const copy: Obj = { ...item };
    for (const method of HTTP_METHODS) {
      const operation = copy[method];
      if (!isObj(operation) || !isObj(operation.callbacks)) continue;
      for (const [name, callback] of Object.entries(operation.callbacks)) {
        if (!isObj(callback)) continue;
        for (const [expression, callbackItem] of Object.entries(callback)) {
          if (!isObj(callbackItem)) continue;
          for (const callbackMethod of HTTP_METHODS) {
            const callbackOperation = callbackItem[callbackMethod];
            if (!isObj(callbackOperation)) continue;
            const body = isObj(callbackOperation.requestBody) ? callbackOperation.requestBody : {};
            const key = `${CALLBACK_PREFIX}${pathKey}/${method}/${name}/${expression}/${callbackMethod}`;
            paths[key] = { get: { responses: { [RECEIVED_STATUS]: { description: '', ...(body.content === undefined ? {} : { content: body.content }) } } } };
            const whole = ['paths', pathKey, method, 'callbacks', name, expression, callbackMethod];
            origins.set(key, { document: 'openapi', base: [...whole, 'requestBody'], whole, depth: 5, label: `callback ${name} of ${method.toUpperCase()} ${pathKey}` });
          }
        }
      }
      const { callbacks: _moved, ...rest } = operation;
      copy[method] = rest;
    }
    paths[pathKey] = copy;
  }
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

const child = (node: unknown, segment: Segment): unknown =>
  Array.isArray(node) ? node[Number(segment)] : isObj(node) ? node[String(segment)] : undefined;

/** Follows `path` through `doc`, jumping to the target of every local `$ref` met: the concrete path and the node. */
function walk(doc: unknown, path: readonly Segment[]): { path: Segment[]; node: unknown } {
  let node: unknown = doc;
  let out: Segment[] = [];
  const follow = () => {
    for (let hops = 0; isObj(node) && typeof node.$ref === 'string' && node.$ref.startsWith('#/') && hops < 32; hops++) {
      out = fromPointer(node.$ref);
      node = out.reduce<unknown>(child, doc);
    }
  };
  for (const segment of path) {
    follow();
    node = child(node, segment);
    out.push(segment);
  }
  follow();
  return { path: out, node };
}

export function concretePath(doc: unknown, path: readonly Segment[]): Segment[] {
  return walk(doc, path).path;
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
      const real = path.length >= origin.depth ? [...origin.base, ...rest] : origin.whole;
      return { document: origin.document, path: real, where: origin.label, synthetic: true };
    }
    const method = typeof path[2] === 'string' && HTTP_METHODS.includes(path[2]) ? `${path[2].toUpperCase()} ` : '';
    return { document: 'openapi', path: [...path], where: `${method}${path[1]}`, synthetic: false };
  }
  const where = path[0] === 'components' && path[2] !== undefined ? `${String(path[1])} ${String(path[2])}` : String(path[0]);
  return { document: 'openapi', path: [...path], where, synthetic: false };
}

const VERBS: Record<Diff['action'], string> = { add: 'added', remove: 'removed', replace: 'changed', rename: 'renamed' };

/** `<subject>-<verb>` from the real path, e.g. `property-removed`. */
export function kindOf(path: readonly Segment[], action: Diff['action'], document: SpecDocument): string {
  return `${subjectOf(path, document)}-${VERBS[action]}`;
}

function subjectOf(path: readonly Segment[], document: SpecDocument): string {
  const last = path[path.length - 1];
  const parent = path[path.length - 2];
  let subject: string;
  if (document === 'asyncapi' && path.length === 4 && path[0] === 'channels' && path[2] === 'messages') subject = 'event';
  else if (path[0] === 'webhooks' && path.length === 2) subject = 'webhook';
  else if (path[0] === 'paths' && path[3] === 'callbacks' && path.length === 7) subject = 'callback';
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
  return subject;
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
  // Specification extensions carry documentation and tooling hints; no client validates against them. (A property or
  // header that happens to be named `x-...` is data, not an extension.)
  const extension = path.some((s, i) => typeof s === 'string' && s.startsWith('x-') && path[i - 1] !== 'properties' && path[i - 1] !== 'headers');
  if (extension) return { classification: 'annotation' };
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
    // Whether one regular expression admits more than another is undecidable in general: a changed or removed
    // pattern may let through values a reader's validation rejects.
    if (last === 'pattern' && diff.action !== 'add') return { classification: 'breaking', reason: 'readers may now get values the old pattern excluded' };
  }
  if (direction === 'request') {
    // A request that may carry more (another type, null) accepts every request it accepted before.
    if (diff.action === 'replace' && last === 'type') {
      const before = typeSet(diff.before);
      const after = typeSet(diff.after);
      if (before.size > 0 && [...before].every((t) => after.has(t)) && diff.type === 'breaking') return { classification: 'non-breaking', reason: 'the field accepts everything it accepted before' };
    }
    if (last === 'nullable' && diff.after === true && diff.type === 'breaking') return { classification: 'non-breaking', reason: 'the field accepts everything it accepted before' };
    if (last === 'additionalProperties' && diff.after === false) return { classification: 'breaking', reason: 'requests with fields the schema does not name are now refused' };
  }
  if (diff.type === 'unclassified') return { classification: 'breaking', reason: 'not classified by api-smart-diff: treated as breaking, review it' };
  return { classification: diff.type };
}

/** `data.items[].name`: the property names (and array items) below the body, parameter or event payload schema. */
function fieldPath(path: readonly Segment[]): string {
  const start = Math.max(path.lastIndexOf('schema'), path.lastIndexOf('payload'));
  const own = path[path.length - 2] === 'properties' ? path.length - 1 : path.length - 2;
  const names: string[] = [];
  for (let i = start + 1; i <= own && start >= 0; i++) {
    if (path[i - 1] === 'properties' && i <= own) names.push(String(path[i]));
    else if (path[i] === 'items' && names.length > 0) names[names.length - 1] += '[]';
  }
  return names.join('.');
}

/** `request body (application/json)`, `parameter limit`, `response 200 (application/json)`, `payload`. */
function container(path: readonly Segment[], located: Located, doc: unknown, usagePath: readonly Segment[]): string {
  const media = (at: number) => (path[at] === 'content' && path[at + 1] !== undefined ? ` (${String(path[at + 1])})` : '');
  if (located.synthetic) return 'payload';
  const body = path.indexOf('requestBody');
  if (body >= 0) return `request body${media(body + 1)}`;
  const responses = path.indexOf('responses');
  if (responses >= 0 && path[responses + 1] !== undefined) return `response ${String(path[responses + 1])}${media(responses + 2)}`;
  const parameters = usagePath.indexOf('parameters');
  if (parameters >= 0 && usagePath[parameters + 1] !== undefined) {
    const parameter = walk(doc, usagePath.slice(0, parameters + 2)).node;
    return isObj(parameter) && typeof parameter.name === 'string' ? `parameter ${parameter.name}` : 'parameter';
  }
  return '';
}

const MAX_SHOWN = 60;
/** A primitive value in backticks, shortened; objects are left to the pointer. */
function show(value: unknown): string {
  if (value !== null && typeof value === 'object') return '';
  const text = String(value);
  return `\`${text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN - 3)}...` : text}\``;
}

function values(diff: Diff): string {
  const before = show(diff.before);
  const after = show(diff.after);
  if (diff.action === 'replace' || diff.action === 'rename') return before && after ? `: ${before} -> ${after}` : '';
  if (diff.action === 'add') return after ? `: ${after}` : '';
  return before ? ` (was ${before})` : '';
}

/** One sentence: where a client meets it, what changed (subject, verb, field, values). */
function describe(diff: Diff, located: Located, doc: unknown, usagePath: readonly Segment[]): string {
  const own = subjectOf(located.path, located.document);
  const subject = own.startsWith('x-') ? own : own.replace(/-/g, ' ');
  const field = fieldPath(located.path);
  const inside = container(located.path, located, doc, usagePath);
  return `${located.where}: ${subject} ${VERBS[diff.action]}${field ? ` at \`${field}\`` : ''}${inside ? ` in the ${inside}` : ''}${values(diff)}`;
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
    const text = describe(diff, located, source, path);
    const change: Change = {
      classification: verdict.classification,
      kind: kindOf(located.path, diff.action, located.document),
      document: located.document,
      pointer: toPointer(concrete.path),
      location: toPointer(located.path),
      message: `${text}${verdict.reason === undefined ? '' : ` (${verdict.reason})`}`,
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
