/**
 * Producer-consumer links inferred from the spec (D271 contract checker's value pool), in the manner of RESTler's dependency inference and
 * Schemathesis' link inference: the values an answer carries are kept under the name of the input they can feed.
 *  - a response property named like an input (`order_id` feeds `{order_id}`, a body's `payment_id`, `X-Merchant-ID`:
 *    names compare without case, separators or an `X-` prefix);
 *  - an `id` feeds the item parameter of its collection (`POST /orders` -> `/orders/{order_id}`), the parameter named
 *    after its parent property (`merchant.id` -> `merchant_id`) or after the list it came from (`.../deliveries` ->
 *    `delivery_id`), or a path parameter of the operation that answered it;
 *  - OpenAPI `links` (runtime expressions over the response and the request);
 *  - a `Location` header or a URL-valued property whose path is one of the API's own paths (`/files/{document_id}`).
 * Only the names of inputs some operation takes are kept, and a consumer takes a value only if its own schema accepts
 * it (so `payment_id: "OD..."` never feeds a parameter whose pattern wants `PR...`).
 */
import { isObj, pathMatcher, type LinkSpec, type OperationInfo } from './document.js';
import type { Json } from './samples.js';
import { unescapePointerToken } from '@paygate/contract/json';

export type Scalar = string | number | boolean;

export interface PooledValue {
  key: string;
  value: Scalar;
  /** The operation whose answer carried it. */
  from: string;
  /** The credential set that made the request. */
  set: string;
  /** Made by this run (a POST/PUT answer), not just read. */
  created: boolean;
  seq: number;
  /** Requests that used it and got a 2xx. */
  successes: number;
}

/** `X-Merchant-ID`, `merchant_id`, `merchantId` -> `merchantid`. */
export const inputKey = (name: string): string =>
  name
    .replace(/^x-/i, '')
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '');

/** `deliveries` -> `delivery`, `merchants` -> `merchant`, `addresses` -> `address`. */
export function singular(word: string): string {
  if (/ies$/i.test(word)) return word.replace(/ies$/i, 'y');
  if (/(ss|x|ch|sh)es$/i.test(word)) return word.replace(/es$/i, '');
  if (/s$/i.test(word) && !/ss$/i.test(word)) return word.slice(0, -1);
  return word;
}

const CONTAINERS = new Set([
  'data',
  'result',
  'results',
  'items',
  'item',
  'records',
  'record',
  'content',
  'value',
  'values',
  'body',
  'response',
  'payload',
  'object',
  'objects',
  'entries',
  'entry',
  'list',
  'page',
  'nodes',
  'node',
  'edges',
  'rows',
  'resource',
]);

export class ValuePool {
  private readonly values = new Map<string, PooledValue[]>();
  private seq = 0;
  private readonly templates: { op: OperationInfo; re: RegExp; names: string[] }[];

  constructor(
    operations: readonly OperationInfo[],
    /** Input keys worth keeping: path parameters of any operation, link targets. */
    readonly keys: Set<string>,
    private readonly basePath: string,
  ) {
    this.templates = operations.map((op) => ({ op, ...pathMatcher(op.path) }));
  }

  /** The input keys of every path parameter in the spec: the resources a run has to find or make. */
  static resourceKeys(operations: readonly OperationInfo[]): Set<string> {
    const keys = new Set<string>();
    for (const op of operations) for (const p of op.params) if (p.in === 'path') keys.add(inputKey(p.name));
    return keys;
  }

  add(key: string, value: Scalar, from: string, set: string, created: boolean): void {
    if (!this.keys.has(key) || value === '' || typeof value === 'boolean') return;
    const list = this.values.get(key) ?? [];
    const existing = list.find((v) => v.value === value);
    if (existing !== undefined) {
      existing.created ||= created;
      return;
    }
    list.push({ key, value, from, set, created, seq: this.seq++, successes: 0 });
    this.values.set(key, list);
  }

  has(key: string): boolean {
    return (this.values.get(key)?.length ?? 0) > 0;
  }

  /** Values of a key the consumer's schema accepts: same credential set, made by this run, proven, oldest first. */
  candidates(key: string, accepts: (v: Scalar) => boolean, set: string | undefined): PooledValue[] {
    return [...(this.values.get(key) ?? [])]
      .filter((v) => accepts(v.value))
      .sort(
        (a, b) =>
          Number(b.set === set) - Number(a.set === set) ||
          Number(b.created) - Number(a.created) ||
          b.successes - a.successes ||
          a.seq - b.seq,
      );
  }

  /** The newest value of a key the consumer accepts (what a producer just made). */
  newest(key: string, accepts: (v: Scalar) => boolean): PooledValue | undefined {
    return [...(this.values.get(key) ?? [])].filter((v) => accepts(v.value)).sort((a, b) => b.seq - a.seq)[0];
  }

  find(key: string, value: Scalar): PooledValue | undefined {
    return this.values.get(key)?.find((v) => v.value === value);
  }

  /** Path parameters of one of the API's own paths, from a URL or a path (`Location`, `file: https://.../files/x`). */
  paramsOfUrl(raw: string): Record<string, string> | undefined {
    let pathname: string;
    try {
      pathname = new URL(raw, 'http://base.invalid').pathname;
    } catch {
      return undefined;
    }
    const relative = this.basePath !== '' && pathname.startsWith(this.basePath) ? pathname.slice(this.basePath.length) : pathname;
    for (const t of this.templates) {
      if (t.names.length === 0) continue;
      const m = t.re.exec(relative);
      if (m !== null) return Object.fromEntries(t.names.map((n, i) => [n, decodeURIComponent(m[i + 1]!)]));
    }
    return undefined;
  }

  /** The item parameter of a collection path (`/orders` or `/orders/` -> `order_id` of `/orders/{order_id}`). */
  private itemParams(op: OperationInfo): string[] {
    const out: string[] = [];
    const own = /\{([^}]+)\}\/?$/.exec(op.path);
    if (own) out.push(own[1]!);
    const base = op.path.replace(/\/$/, '');
    for (const t of this.templates) {
      const m = /^(.*)\/\{([^}]+)\}\/?$/.exec(t.op.path);
      if (m && m[1] === base) out.push(m[2]!);
    }
    for (const p of op.params) if (p.in === 'path') out.push(p.name);
    const last = op.path
      .split('/')
      .filter((s) => s !== '' && !s.startsWith('{'))
      .pop();
    if (last !== undefined) out.push(`${singular(last)}_id`);
    return [...new Set(out)];
  }

  /** Keeps what a 2xx answer carries (body, `Location`, links). */
  harvest(
    op: OperationInfo,
    status: number,
    body: Json | undefined,
    headers: Headers,
    set: string,
    request: { path: Record<string, string>; query: Record<string, string>; headers: Record<string, string>; body: Json | undefined },
  ): void {
    const created = (op.method === 'post' || op.method === 'put') && status < 300;
    const sentPath = new Set(Object.values(request.path));
    const add = (key: string, value: Scalar) => this.add(key, value, op.operationId, set, created && !sentPath.has(String(value)));
    const itemKeys = this.itemParams(op).map(inputKey);
    const visit = (node: Json | undefined, parent: string | undefined, depth: number): void => {
      if (depth > 7 || node === undefined || node === null) return;
      if (Array.isArray(node)) {
        for (const item of node.slice(0, 10)) visit(item, parent, depth + 1);
        return;
      }
      if (!isObj(node)) return;
      for (const [name, value] of Object.entries(node)) {
        if (typeof value === 'string' || typeof value === 'number') {
          if (name.toLowerCase() === 'id') {
            if (parent !== undefined && !CONTAINERS.has(parent.toLowerCase())) add(inputKey(`${singular(parent)}_id`), value);
            else for (const k of itemKeys) add(k, value);
          } else add(inputKey(name), value);
          if (typeof value === 'string' && (value.startsWith('/') || /^https?:\/\//.test(value))) {
            const params = this.paramsOfUrl(value);
            if (params) for (const [k, v] of Object.entries(params)) add(inputKey(k), v);
          }
        } else visit(value, name, depth + 1);
      }
    };
    visit(body, undefined, 0);
    const location = headers.get('location');
    if (location) {
      const params = this.paramsOfUrl(location);
      if (params) for (const [k, v] of Object.entries(params)) add(inputKey(k), v);
    }
    const declared = op.responses.get(String(status)) ?? op.responses.get(`${Math.floor(status / 100)}XX`);
    for (const link of declared?.links ?? []) this.followLink(link, op, body, headers, request, add);
  }

  private followLink(
    link: LinkSpec,
    op: OperationInfo,
    body: Json | undefined,
    headers: Headers,
    request: { path: Record<string, string>; query: Record<string, string>; headers: Record<string, string>; body: Json | undefined },
    add: (key: string, value: Scalar) => void,
  ): void {
    for (const [param, expression] of Object.entries(link.parameters)) {
      const name = param.replace(/^(path|query|header|cookie)\./, '');
      const value = evaluate(expression, body, headers, request);
      if (typeof value === 'string' || typeof value === 'number') {
        this.keys.add(inputKey(name));
        add(inputKey(name), value);
      }
    }
    void op;
  }

  /** Counts a successful use (the value is proven for this key). */
  proven(key: string, value: Scalar): void {
    const v = this.find(key, value);
    if (v) v.successes++;
  }
}

/** An OpenAPI runtime expression (`$response.body#/data/id`, `$response.header.Location`, `$request.path.id`). */
export function evaluate(
  expression: Json,
  body: Json | undefined,
  headers: Headers,
  request: { path: Record<string, string>; query: Record<string, string>; headers: Record<string, string>; body: Json | undefined },
): Json | undefined {
  if (typeof expression !== 'string' || !expression.startsWith('$')) return expression;
  const pointer = (root: Json | undefined, p: string): Json | undefined => {
    let node = root;
    for (const raw of p.split('/').slice(1)) {
      const key = unescapePointerToken(decodeURIComponent(raw));
      node = isObj(node) ? node[key] : Array.isArray(node) ? node[Number(key)] : undefined;
    }
    return node;
  };
  let m = /^\$response\.body(?:#(.*))?$/.exec(expression);
  if (m) return m[1] === undefined ? body : pointer(body, m[1]);
  m = /^\$response\.header\.(.+)$/.exec(expression);
  if (m) return headers.get(m[1]!) ?? undefined;
  m = /^\$request\.(path|query|header)\.(.+)$/.exec(expression);
  if (m) {
    const bag = m[1] === 'path' ? request.path : m[1] === 'query' ? request.query : request.headers;
    const hit = Object.entries(bag).find(([k]) => k.toLowerCase() === m![2]!.toLowerCase());
    return hit?.[1];
  }
  m = /^\$request\.body(?:#(.*))?$/.exec(expression);
  if (m) return m[1] === undefined ? request.body : pointer(request.body, m[1]);
  return undefined;
}
