/**
 * The breaking-change engine (D103 versions compared by meaning after normalisation): two versions of a contract compared by meaning, in the reader's direction (D54 changes judged in the direction data flows).
 * Operations are matched by method and path template (`{id}` and `{order_id}` are one path), parameters by location
 * and name (path parameters by position), responses by status, media types by type; webhooks, operation callbacks and
 * AsyncAPI event payloads are data the merchant receives, so they are compared like response bodies. What lies below
 * (parameters, bodies, responses, headers, schemas, security) is compared pair by pair in a graph (graph.ts) so that
 * each change is reported once, where it is defined, with the operations that reach it beneath it (D104 one diff entry per change, at its definition).
 */
import { SpecDoc, deepEqual, fromPointer, isObj, join, type Located, type Obj } from './document.js';
import { ChangeGraph, toChange, type Entry, type GraphNode } from './graph.js';
import { Emitter, compareAnnotations, schemaPair, type Direction, type Sides } from './schema-compare.js';
import { CLASSIFICATIONS, type Change, type Classification, type ContractSnapshot } from './types.js';
import { escapePointerToken } from '../util/json.js';

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const OPERATION_ANNOTATIONS = ['summary', 'description', 'tags', 'externalDocs', 'deprecated'];

/** Every change from `before` to `after`, most severe first, then by pointer. */
export function compareContracts(before: ContractSnapshot, after: ContractSnapshot): Change[] {
  const graph = new ChangeGraph();
  const sides: Sides = { graph, a: new SpecDoc(before.openapi, 'openapi'), b: new SpecDoc(after.openapi, 'openapi') };
  compareTopLevel(sides);
  compareOperations(sides);
  compareWebhooks(sides);
  if (before.events !== undefined || after.events !== undefined) compareEvents(graph, before, after);
  const entries = graph.finish();
  const docs = { openapi: [sides.a, sides.b], asyncapi: [] as SpecDoc[] };
  return entries
    .map((entry) => toChange(entry, describe(entry, docs.openapi)))
    .sort(
      (x, y) =>
        rank(x.classification) - rank(y.classification) ||
        (x.document < y.document ? -1 : x.document > y.document ? 1 : 0) ||
        (x.pointer < y.pointer ? -1 : x.pointer > y.pointer ? 1 : 0) ||
        (x.kind < y.kind ? -1 : x.kind > y.kind ? 1 : 0),
    );
}

const rank = (c: Classification) => CLASSIFICATIONS.indexOf(c);

// ---------------------------------------------------------------------------------------------------------------
// top level

function compareTopLevel(sides: Sides): void {
  const out = new Emitter(sides, sides.graph.leaf());
  const a = sides.a.root as Obj;
  const b = sides.b.root as Obj;
  const info = (doc: Obj) => (isObj(doc.info) ? doc.info : {});
  for (const key of new Set([...Object.keys(info(a)), ...Object.keys(info(b))])) {
    const x = info(a)[key];
    const y = info(b)[key];
    if (deepEqual(x, y)) continue;
    out.emit(
      y === undefined ? 'a' : 'b',
      `${key}-${x === undefined ? 'added' : y === undefined ? 'removed' : 'changed'}`,
      join('/info', key),
      'annotation',
      undefined,
      x,
      y,
    );
  }
  for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
    if (['info', 'paths', 'webhooks', 'components', 'security'].includes(key)) continue;
    const x = a[key];
    const y = b[key];
    if (deepEqual(x, y)) continue;
    const verb = x === undefined ? 'added' : y === undefined ? 'removed' : 'changed';
    const side = y === undefined ? 'a' : 'b';
    if (key === 'servers') out.emit(side, `servers-${verb}`, '/servers', 'warning', 'the base URL clients call may have moved');
    else if (key === 'jsonSchemaDialect')
      out.emit(side, `${key}-${verb}`, `/${key}`, 'unclassified', 'schemas are read by another dialect: review it');
    else
      out.emit(
        side,
        `${key}-${verb}`,
        join('', key),
        'annotation',
        undefined,
        typeof x === 'object' ? undefined : x,
        typeof y === 'object' ? undefined : y,
      );
  }
}

// ---------------------------------------------------------------------------------------------------------------
// operations

interface Operation {
  path: string;
  method: string;
  item: Located;
  op: Located;
}

const template = (path: string) => path.replace(/\{[^}]*\}/g, '{}');
const label = (o: Operation) => `${o.method.toUpperCase()} ${o.path}`;

function operationsOf(doc: SpecDoc): Map<string, Operation> {
  const paths = (doc.root as Obj).paths;
  const out = new Map<string, Operation>();
  if (!isObj(paths)) return out;
  for (const path of Object.keys(paths)) {
    const item = doc.resolve(paths[path], join('/paths', path));
    if (!isObj(item.node)) continue;
    for (const method of HTTP_METHODS) {
      const op = doc.child(item, method);
      if (!op || !isObj(op.node)) continue;
      const key = `${template(path)} ${method}`;
      out.set(out.has(key) ? `${path} ${method}` : key, { path, method, item, op });
    }
  }
  return out;
}

function compareOperations(sides: Sides): void {
  const before = operationsOf(sides.a);
  const after = operationsOf(sides.b);
  const keys = [...new Set([...before.keys(), ...after.keys()])].sort();
  for (const key of keys) {
    const a = before.get(key);
    const b = after.get(key);
    if (a && b) {
      sides.graph.root({ where: label(b), node: operationPair(sides, a, b), direction: 'none', in: '' });
      continue;
    }
    const leaf = sides.graph.leaf();
    const out = new Emitter(sides, leaf);
    if (a) out.emit('a', 'operation-removed', join('/paths', a.path, a.method), 'breaking', 'clients calling it get 404 or 405');
    else out.emit('b', 'operation-added', join('/paths', b!.path, b!.method), 'non-breaking');
    sides.graph.root({ where: label((a ?? b)!), node: leaf, direction: 'none', in: '' });
  }
}

function operationPair(sides: Sides, a: Operation, b: Operation): GraphNode {
  return sides.graph.node(`op|${a.op.ptr}|${b.op.ptr}`, (node) => {
    const out = new Emitter(sides, node);
    const opA = a.op.node as Obj;
    const opB = b.op.node as Obj;
    compareAnnotations(out, annotationsOf(opA, a.op.ptr, OPERATION_ANNOTATIONS), annotationsOf(opB, b.op.ptr, OPERATION_ANNOTATIONS));
    if (opA.operationId !== opB.operationId) {
      out.emit(
        opB.operationId === undefined ? 'a' : 'b',
        `operationId-${opA.operationId === undefined ? 'added' : opB.operationId === undefined ? 'removed' : 'changed'}`,
        join(opB.operationId === undefined ? a.op.ptr : b.op.ptr, 'operationId'),
        'warning',
        'generated clients name their method after it',
        opA.operationId,
        opB.operationId,
      );
    }
    compareParameters(sides, out, a, b);
    compareRequestBodies(sides, out, a, b);
    compareResponses(sides, out, a, b);
    out.node.edges.push({ to: securityPair(sides, a, b), label: 'security', direction: 'request' });
    compareCallbacks(sides, out, a, b);
    const serversA = opA.servers ?? (a.item.node as Obj).servers;
    const serversB = opB.servers ?? (b.item.node as Obj).servers;
    if (!deepEqual(serversA, serversB))
      out.emit('b', 'servers-changed', join(b.op.ptr, 'servers'), 'warning', 'the base URL clients call may have moved');
  });
}

function annotationsOf(node: Obj, ptr: string, keys: readonly string[]): { annotations: Map<string, { value: unknown; ptr: string }> } {
  const annotations = new Map<string, { value: unknown; ptr: string }>();
  for (const [key, value] of Object.entries(node)) {
    if (keys.includes(key) || key.startsWith('x-'))
      annotations.set(key, { value: key === 'tags' && Array.isArray(value) ? [...value].sort() : value, ptr: join(ptr, key) });
  }
  return { annotations };
}

// ---------------------------------------------------------------------------------------------------------------
// parameters

interface Parameter {
  /** The list entry (`.../parameters/<i>`), where an addition or removal is reported. */
  entry: string;
  resolved: Located;
  name: string;
  in: string;
}

function parametersOf(doc: SpecDoc, o: Operation): Map<string, Parameter> {
  const names = [...o.path.matchAll(/\{([^}]*)\}/g)].map((m) => m[1]);
  const out = new Map<string, Parameter>();
  for (const owner of [o.item, o.op]) {
    const list = (owner.node as Obj).parameters;
    if (!Array.isArray(list)) continue;
    list.forEach((raw, i) => {
      const entry = join(owner.ptr, 'parameters', i);
      const resolved = doc.resolve(raw, entry);
      if (!isObj(resolved.node)) return;
      const name = String(resolved.node.name ?? '');
      const where = String(resolved.node.in ?? '');
      const key =
        where === 'path' ? `path#${names.indexOf(name)}` : where === 'header' ? `header:${name.toLowerCase()}` : `${where}:${name}`;
      out.set(key, { entry, resolved, name, in: where });
    });
  }
  return out;
}

function compareParameters(sides: Sides, out: Emitter, a: Operation, b: Operation): void {
  const before = parametersOf(sides.a, a);
  const after = parametersOf(sides.b, b);
  for (const [key, pa] of before) {
    const pb = after.get(key);
    if (pb) {
      out.node.edges.push({ to: parameterPair(sides, pa, pb), label: `parameter ${pb.name}`, direction: 'request' });
      continue;
    }
    // unknown headers are always tolerated; strict servers (this toolkit's among them) refuse unknown query parameters
    const header = pa.in === 'header';
    out.emit(
      'a',
      'parameter-removed',
      pa.entry,
      header ? 'warning' : 'breaking',
      header ? 'the server no longer reads it' : 'requests that send it may be refused, and the server no longer reads it',
      pa.name,
    );
  }
  for (const [key, pb] of after) {
    if (before.has(key)) continue;
    // a path parameter names a segment of the path template, which both versions share: clients already send it
    const required = (pb.resolved.node as Obj).required === true && pb.in !== 'path';
    out.emit(
      'b',
      'parameter-added',
      pb.entry,
      required ? 'breaking' : 'non-breaking',
      required ? 'a new required parameter: requests without it are refused' : undefined,
      undefined,
      pb.name,
    );
  }
}

const defaultStyle = (where: string) => (where === 'query' || where === 'cookie' ? 'form' : 'simple');

function parameterPair(sides: Sides, pa: Parameter, pb: Parameter): GraphNode {
  return sides.graph.node(`p|${pa.resolved.ptr}|${pb.resolved.ptr}`, (node) => {
    const out = new Emitter(sides, node);
    const a = pa.resolved.node as Obj;
    const b = pb.resolved.node as Obj;
    const ra = a.required === true || a.in === 'path';
    const rb = b.required === true || b.in === 'path';
    if (!ra && rb)
      out.emit('b', 'required-added', join(pb.resolved.ptr, 'required'), 'breaking', 'requests without it are refused', a.required, true);
    if (ra && !rb) out.emit('a', 'required-removed', join(pa.resolved.ptr, 'required'), 'non-breaking', undefined, true, b.required);
    const styleA = a.style ?? defaultStyle(String(a.in));
    const styleB = b.style ?? defaultStyle(String(b.in));
    if (styleA !== styleB)
      out.emit('b', 'style-changed', join(pb.resolved.ptr, 'style'), 'breaking', 'clients serialize it the old way', styleA, styleB);
    const explodeA = a.explode ?? styleA === 'form';
    const explodeB = b.explode ?? styleB === 'form';
    if (explodeA !== explodeB)
      out.emit(
        'b',
        'explode-changed',
        join(pb.resolved.ptr, 'explode'),
        'breaking',
        'clients serialize it the old way',
        explodeA,
        explodeB,
      );
    if (a.allowEmptyValue === true && b.allowEmptyValue !== true)
      out.emit(
        'a',
        'allowEmptyValue-removed',
        join(pa.resolved.ptr, 'allowEmptyValue'),
        'breaking',
        'requests with an empty value are refused',
      );
    compareAnnotations(
      out,
      annotationsOf(a, pa.resolved.ptr, ['description', 'example', 'examples', 'deprecated']),
      annotationsOf(b, pb.resolved.ptr, ['description', 'example', 'examples', 'deprecated']),
    );
    const sa = sides.a.child(pa.resolved, 'schema');
    const sb = sides.b.child(pb.resolved, 'schema');
    if (sa && sb)
      out.edge(schemaPair(sides, 'request', [sa], [sb], { a: join(pa.resolved.ptr, 'schema'), b: join(pb.resolved.ptr, 'schema') }));
    else if (sa || sb || a.content !== undefined || b.content !== undefined)
      compareContent(sides, out, 'request', pa.resolved, pb.resolved);
  });
}

// ---------------------------------------------------------------------------------------------------------------
// bodies and responses

const mediaKey = (type: string) => type.split(';')[0]!.trim().toLowerCase();

function mediaTypes(owner: Located): Map<string, Located> {
  const content = isObj(owner.node) ? owner.node.content : undefined;
  const out = new Map<string, Located>();
  if (!isObj(content)) return out;
  for (const type of Object.keys(content)) out.set(mediaKey(type), { node: content[type], ptr: join(owner.ptr, 'content', type) });
  return out;
}

/** Media types of two bodies (requests, responses, parameters with `content`): removed, added, and their schemas. */
function compareContent(sides: Sides, out: Emitter, dir: Direction, a: Located, b: Located): void {
  const before = mediaTypes(a);
  const after = mediaTypes(b);
  for (const [type, ma] of before) {
    const mb = after.get(type);
    if (!mb) {
      out.emit(
        'a',
        'media-type-removed',
        ma.ptr,
        'breaking',
        dir === 'request' ? 'requests in this media type are refused' : 'clients asking for this media type get nothing they can read',
      );
      continue;
    }
    compareAnnotations(
      out,
      annotationsOf(isObj(ma.node) ? ma.node : {}, ma.ptr, ['example', 'examples']),
      annotationsOf(isObj(mb.node) ? mb.node : {}, mb.ptr, ['example', 'examples']),
    );
    const sa = sides.a.child(ma, 'schema');
    const sb = sides.b.child(mb, 'schema');
    if (sa && sb) out.edge(schemaPair(sides, dir, [sa], [sb], { a: join(ma.ptr, 'schema'), b: join(mb.ptr, 'schema') }), ` (${type})`);
    else if (sa && !sb)
      out.emit(
        'a',
        'schema-removed',
        sa.ptr,
        dir === 'request' ? 'non-breaking' : 'warning',
        dir === 'request' ? undefined : 'the body is no longer described',
      );
    else if (!sa && sb)
      out.emit(
        'b',
        'schema-added',
        sb.ptr,
        dir === 'request' ? 'warning' : 'non-breaking',
        dir === 'request' ? 'bodies sent before may not match the new schema' : undefined,
      );
  }
  for (const [type, mb] of after) if (!before.has(type)) out.emit('b', 'media-type-added', mb.ptr, 'non-breaking');
}

function compareRequestBodies(sides: Sides, out: Emitter, a: Operation, b: Operation): void {
  const ba = sides.a.child(a.op, 'requestBody');
  const bb = sides.b.child(b.op, 'requestBody');
  if (!ba && !bb) return;
  if (ba && bb) {
    const node = sides.graph.node(`rb|${ba.ptr}|${bb.ptr}`, (n) => {
      const o = new Emitter(sides, n);
      const ra = isObj(ba.node) && ba.node.required === true;
      const rb = isObj(bb.node) && bb.node.required === true;
      if (!ra && rb)
        o.emit('b', 'required-added', join(bb.ptr, 'required'), 'breaking', 'requests without a body are refused', false, true);
      if (ra && !rb) o.emit('a', 'required-removed', join(ba.ptr, 'required'), 'non-breaking');
      compareAnnotations(
        o,
        annotationsOf(isObj(ba.node) ? ba.node : {}, ba.ptr, ['description']),
        annotationsOf(isObj(bb.node) ? bb.node : {}, bb.ptr, ['description']),
      );
      compareContent(sides, o, 'request', ba, bb);
    });
    out.node.edges.push({ to: node, label: 'request body', direction: 'request' });
    return;
  }
  if (bb) {
    const required = isObj(bb.node) && bb.node.required === true;
    out.emit(
      'b',
      'requestBody-added',
      join(b.op.ptr, 'requestBody'),
      required ? 'breaking' : 'non-breaking',
      required ? 'a required request body: requests without one are refused' : undefined,
    );
  } else {
    out.emit('a', 'requestBody-removed', join(a.op.ptr, 'requestBody'), 'warning', 'the server no longer reads the body clients send');
  }
}

const isSuccess = (status: string) => /^2(\d\d|XX)$/i.test(status);

function compareResponses(sides: Sides, out: Emitter, a: Operation, b: Operation): void {
  const ra = sides.a.child(a.op, 'responses');
  const rb = sides.b.child(b.op, 'responses');
  const codes = (r: Located | undefined) => new Map(isObj(r?.node) ? Object.keys(r.node).map((k) => [k.toUpperCase(), k] as const) : []);
  const before = codes(ra);
  const after = codes(rb);
  const hadSuccess = [...before.keys()].some(isSuccess);
  for (const [code, key] of before) {
    const keyB = after.get(code);
    if (keyB === undefined) {
      const success = isSuccess(code);
      out.emit(
        'a',
        'response-removed',
        join(ra!.ptr, key),
        success ? 'breaking' : 'warning',
        success ? 'clients expecting this status get another one' : 'clients handling this status no longer get it',
      );
      continue;
    }
    const x = sides.a.child(ra!, key)!;
    const y = sides.b.child(rb!, keyB)!;
    out.node.edges.push({ to: responsePair(sides, x, y), label: `response ${keyB}`, direction: 'response' });
  }
  for (const [code, key] of after) {
    if (before.has(code)) continue;
    const warn = isSuccess(code) && hadSuccess;
    out.emit(
      'b',
      'response-added',
      join(rb!.ptr, key),
      warn ? 'warning' : 'non-breaking',
      warn ? 'clients may get a success status they do not handle' : undefined,
    );
  }
}

function responsePair(sides: Sides, a: Located, b: Located): GraphNode {
  return sides.graph.node(`r|${a.ptr}|${b.ptr}`, (node) => {
    const out = new Emitter(sides, node);
    const x = isObj(a.node) ? a.node : {};
    const y = isObj(b.node) ? b.node : {};
    compareAnnotations(out, annotationsOf(x, a.ptr, ['description', 'links']), annotationsOf(y, b.ptr, ['description', 'links']));
    compareContent(sides, out, 'response', a, b);
    const headers = (doc: SpecDoc, r: Located) => {
      const map = new Map<string, Located>();
      const h = isObj(r.node) ? r.node.headers : undefined;
      if (isObj(h)) for (const name of Object.keys(h)) map.set(name.toLowerCase(), doc.resolve(h[name], join(r.ptr, 'headers', name)));
      return map;
    };
    const ha = headers(sides.a, a);
    const hb = headers(sides.b, b);
    for (const [name, x1] of ha) {
      const y1 = hb.get(name);
      if (!y1) {
        const required = isObj(x1.node) && x1.node.required === true;
        out.emit(
          'a',
          'header-removed',
          x1.ptr,
          required ? 'breaking' : 'warning',
          required ? 'clients reading this header get nothing' : 'clients reading this header may get nothing',
        );
        continue;
      }
      out.edge(headerPair(sides, x1, y1), ` header ${name}`);
    }
    for (const [name, y1] of hb) if (!ha.has(name)) out.emit('b', 'header-added', y1.ptr, 'non-breaking');
  });
}

function headerPair(sides: Sides, a: Located, b: Located): GraphNode {
  return sides.graph.node(`h|${a.ptr}|${b.ptr}`, (node) => {
    const out = new Emitter(sides, node);
    const x = isObj(a.node) ? a.node : {};
    const y = isObj(b.node) ? b.node : {};
    if (x.required === true && y.required !== true)
      out.emit('a', 'required-removed', join(a.ptr, 'required'), 'breaking', 'clients may no longer get it');
    compareAnnotations(
      out,
      annotationsOf(x, a.ptr, ['description', 'example', 'examples', 'deprecated']),
      annotationsOf(y, b.ptr, ['description', 'example', 'examples', 'deprecated']),
    );
    const sa = sides.a.child(a, 'schema');
    const sb = sides.b.child(b, 'schema');
    if (sa && sb) out.edge(schemaPair(sides, 'response', [sa], [sb], { a: join(a.ptr, 'schema'), b: join(b.ptr, 'schema') }));
  });
}

// ---------------------------------------------------------------------------------------------------------------
// security

type Requirement = Map<string, string[]>;

function securityOf(doc: SpecDoc, o: Operation): { base: string; list: Requirement[] } {
  const op = o.op.node as Obj;
  const root = doc.root as Obj;
  const own = Array.isArray(op.security);
  const raw = own ? op.security : root.security;
  const base = own ? join(o.op.ptr, 'security') : Array.isArray(root.security) ? '/security' : '';
  const list = Array.isArray(raw)
    ? raw.filter(isObj).map((r) => new Map(Object.entries(r).map(([k, v]) => [k, Array.isArray(v) ? v.map(String) : []])))
    : [];
  return { base, list };
}

const satisfies = (offered: Requirement, asked: Requirement) =>
  [...asked].every(([scheme, scopes]) => offered.has(scheme) && scopes.every((s) => offered.get(scheme)!.includes(s)));
const sameRequirement = (x: Requirement, y: Requirement) => x.size === y.size && satisfies(x, y) && satisfies(y, x);

function securityPair(sides: Sides, a: Operation, b: Operation): GraphNode {
  const sa = securityOf(sides.a, a);
  const sb = securityOf(sides.b, b);
  const key = `sec|${sa.base || a.op.ptr}|${sb.base || b.op.ptr}`;
  return sides.graph.node(key, (node) => {
    const out = new Emitter(sides, node);
    // no requirement (or `security: []`) is public: an empty requirement every client meets
    const listA = sa.list.length > 0 ? sa.list : [new Map()];
    const listB = sb.list.length > 0 ? sb.list : [new Map()];
    const reportedB = new Set<number>();
    listA.forEach((r, i) => {
      if (listB.some((rb) => satisfies(r, rb))) return;
      if (r.size === 0) {
        reportedB.add(0);
        out.emit(
          'b',
          'security-requirement-added',
          sb.list.length > 0 ? join(sb.base, 0) : sb.base,
          'breaking',
          'authentication is now required',
        );
        return;
      }
      const j = listB.findIndex((rb) => satisfies(rb, r));
      if (j >= 0) {
        reportedB.add(j);
        for (const [scheme, scopes] of listB[j]! as Requirement) {
          if (!r.has(scheme))
            out.emit('b', 'security-requirement-added', join(sb.base, j, scheme), 'breaking', 'clients must now also send this credential');
          else if (scopes.some((s: string) => !r.get(scheme)!.includes(s)))
            out.emit('b', 'security-scope-added', join(sb.base, j, scheme), 'breaking', 'clients must now hold more scopes');
        }
        return;
      }
      out.emit(
        'a',
        'security-requirement-removed',
        sa.list.length > 0 ? join(sa.base, i) : sa.base,
        'breaking',
        'clients authenticating this way are refused',
      );
    });
    listB.forEach((r, j) => {
      if (reportedB.has(j) || listA.some((ra) => sameRequirement(ra, r))) return;
      if (r.size === 0)
        out.emit(
          'b',
          'security-removed',
          sb.base || join(b.op.ptr),
          'non-breaking',
          'the operation is now public: every client that authenticated still gets in',
        );
      else out.emit('b', 'security-requirement-added', join(sb.base, j), 'non-breaking', 'a new alternative way to authenticate');
    });
    listA.forEach((r, i) => {
      if (r.size === 0 || listB.some((rb) => sameRequirement(rb, r)) || !listB.some((rb) => satisfies(r, rb))) return;
      out.emit('a', 'security-requirement-removed', join(sa.base, i), 'non-breaking', 'fewer credentials are required');
    });
    const schemes = new Set([...listA, ...listB].flatMap((r) => [...r.keys()]));
    for (const scheme of [...schemes].sort()) {
      const x = sides.a.child({ node: sides.a.root, ptr: '' }, 'components', 'securitySchemes', scheme);
      const y = sides.b.child({ node: sides.b.root, ptr: '' }, 'components', 'securitySchemes', scheme);
      if (x && y) out.edge(schemePair(sides, x, y));
    }
  });
}

const SCHEME_FIELDS = ['type', 'in', 'name', 'scheme', 'openIdConnectUrl'];

function schemePair(sides: Sides, a: Located, b: Located): GraphNode {
  return sides.graph.node(`ss|${a.ptr}|${b.ptr}`, (node) => {
    const out = new Emitter(sides, node);
    const x = isObj(a.node) ? a.node : {};
    const y = isObj(b.node) ? b.node : {};
    const norm = (field: string, v: unknown) =>
      typeof v === 'string' && (field === 'scheme' || (field === 'name' && x.in === 'header')) ? v.toLowerCase() : v;
    for (const field of SCHEME_FIELDS) {
      if (deepEqual(norm(field, x[field]), norm(field, y[field]))) continue;
      out.emit(
        y[field] === undefined ? 'a' : 'b',
        `${field}-changed`,
        join(y[field] === undefined ? a.ptr : b.ptr, field),
        'breaking',
        'clients send the credential where it is no longer read',
        x[field],
        y[field],
      );
    }
    const flowsA = isObj(x.flows) ? x.flows : {};
    const flowsB = isObj(y.flows) ? y.flows : {};
    for (const flow of new Set([...Object.keys(flowsA), ...Object.keys(flowsB)])) {
      const fa = flowsA[flow];
      const fb = flowsB[flow];
      if (!isObj(fa) || !isObj(fb)) {
        out.emit(
          fb ? 'b' : 'a',
          `flow-${fb ? 'added' : 'removed'}`,
          join(fb ? b.ptr : a.ptr, 'flows', flow),
          fb ? 'non-breaking' : 'breaking',
          fb ? undefined : 'clients using this flow cannot get a token',
        );
        continue;
      }
      for (const url of ['authorizationUrl', 'tokenUrl', 'refreshUrl']) {
        if (fa[url] !== fb[url])
          out.emit(
            'b',
            `${url}-changed`,
            join(b.ptr, 'flows', flow, url),
            'breaking',
            'clients get tokens from the old address',
            fa[url],
            fb[url],
          );
      }
      const scopesA = isObj(fa.scopes) ? Object.keys(fa.scopes) : [];
      const scopesB = isObj(fb.scopes) ? Object.keys(fb.scopes) : [];
      for (const s of scopesA)
        if (!scopesB.includes(s))
          out.emit('a', 'scope-removed', join(a.ptr, 'flows', flow, 'scopes', s), 'warning', 'clients asking for it may be refused');
      for (const s of scopesB)
        if (!scopesA.includes(s)) out.emit('b', 'scope-added', join(b.ptr, 'flows', flow, 'scopes', s), 'non-breaking');
    }
    compareAnnotations(
      out,
      annotationsOf(x, a.ptr, ['description', 'bearerFormat']),
      annotationsOf(y, b.ptr, ['description', 'bearerFormat']),
    );
  });
}

// ---------------------------------------------------------------------------------------------------------------
// what the merchant receives: callbacks, webhooks, events

/** A request the merchant receives (a callback or webhook operation): its body is read, like a response. */
function receivedPair(sides: Sides, a: Located, b: Located): GraphNode {
  return sides.graph.node(`rcv|${a.ptr}|${b.ptr}`, (node) => {
    const out = new Emitter(sides, node);
    compareAnnotations(
      out,
      annotationsOf(a.node as Obj, a.ptr, OPERATION_ANNOTATIONS),
      annotationsOf(b.node as Obj, b.ptr, OPERATION_ANNOTATIONS),
    );
    const ba = sides.a.child(a, 'requestBody');
    const bb = sides.b.child(b, 'requestBody');
    if (ba && bb) compareContent(sides, out, 'response', ba, bb);
    else if (ba && !bb)
      out.emit('a', 'requestBody-removed', join(a.ptr, 'requestBody'), 'breaking', 'receivers reading the payload get nothing');
    else if (!ba && bb) out.emit('b', 'requestBody-added', join(b.ptr, 'requestBody'), 'non-breaking');
  });
}

function callbackOperations(doc: SpecDoc, op: Located): Map<string, { name: string; op: Located }> {
  const out = new Map<string, { name: string; op: Located }>();
  const callbacks = doc.child(op, 'callbacks');
  if (!callbacks || !isObj(callbacks.node)) return out;
  for (const name of Object.keys(callbacks.node)) {
    const callback = doc.child(callbacks, name);
    if (!callback || !isObj(callback.node)) continue;
    for (const expression of Object.keys(callback.node)) {
      const item = doc.child(callback, expression);
      if (!item || !isObj(item.node)) continue;
      for (const method of HTTP_METHODS) {
        const operation = doc.child(item, method);
        if (operation && isObj(operation.node)) out.set(`${name} ${expression} ${method}`, { name, op: operation });
      }
    }
  }
  return out;
}

function compareCallbacks(sides: Sides, out: Emitter, a: Operation, b: Operation): void {
  const before = callbackOperations(sides.a, a.op);
  const after = callbackOperations(sides.b, b.op);
  for (const [key, x] of before) {
    const y = after.get(key);
    if (y) out.node.edges.push({ to: receivedPair(sides, x.op, y.op), label: `callback ${y.name}`, direction: 'response' });
    else out.emit('a', 'callback-removed', x.op.ptr, 'breaking', 'clients relying on it no longer get it');
  }
  for (const [key, y] of after) if (!before.has(key)) out.emit('b', 'callback-added', y.op.ptr, 'non-breaking');
}

function webhookOperations(doc: SpecDoc): Map<string, Located> {
  const webhooks = (doc.root as Obj).webhooks;
  const out = new Map<string, Located>();
  if (!isObj(webhooks)) return out;
  for (const name of Object.keys(webhooks)) {
    const item = doc.resolve(webhooks[name], join('/webhooks', name));
    if (!isObj(item.node)) continue;
    const method = HTTP_METHODS.find((m) => isObj((item.node as Obj)[m])) ?? 'post';
    const op = doc.child(item, method);
    out.set(name, op ?? { node: {}, ptr: join(item.ptr, method) });
  }
  return out;
}

function compareWebhooks(sides: Sides): void {
  const before = webhookOperations(sides.a);
  const after = webhookOperations(sides.b);
  for (const name of [...new Set([...before.keys(), ...after.keys()])].sort()) {
    const x = before.get(name);
    const y = after.get(name);
    if (x && y) {
      sides.graph.root({ where: `webhook ${name}`, node: receivedPair(sides, x, y), direction: 'response', in: 'payload' });
      continue;
    }
    const leaf = sides.graph.leaf();
    const out = new Emitter(sides, leaf);
    if (x) out.emit('a', 'webhook-removed', join('/webhooks', name), 'breaking', 'clients subscribed to it no longer get it');
    else out.emit('b', 'webhook-added', join('/webhooks', name), 'non-breaking');
    sides.graph.root({ where: `webhook ${name}`, node: leaf, direction: 'response', in: 'payload' });
  }
}

/** The AsyncAPI messages as a document of their own, at their real pointers (`/channels/<c>/messages/<m>/payload`). */
function eventDocument(snapshot: ContractSnapshot): SpecDoc {
  const channels: Obj = {};
  for (const event of snapshot.events ?? []) {
    const channel = (channels[event.channel] ??= { messages: {} }) as { messages: Obj };
    channel.messages[event.message] = { name: event.name, payload: event.payload ?? {} };
  }
  return new SpecDoc({ channels }, 'asyncapi');
}

function compareEvents(graph: ChangeGraph, before: ContractSnapshot, after: ContractSnapshot): void {
  const sides: Sides = { graph, a: eventDocument(before), b: eventDocument(after) };
  const messages = (s: ContractSnapshot) => new Map((s.events ?? []).map((e) => [`${e.channel}\u0000${e.message}`, e] as const));
  const x = messages(before);
  const y = messages(after);
  for (const key of [...new Set([...x.keys(), ...y.keys()])].sort()) {
    const ea = x.get(key);
    const eb = y.get(key);
    const event = (eb ?? ea)!;
    const where = `event ${event.name} (channel ${event.channel})`;
    const ptr = join('/channels', event.channel, 'messages', event.message);
    if (ea && eb) {
      const pa = sides.a.child({ node: sides.a.root, ptr: '' }, 'channels', ea.channel, 'messages', ea.message, 'payload')!;
      const pb = sides.b.child({ node: sides.b.root, ptr: '' }, 'channels', eb.channel, 'messages', eb.message, 'payload')!;
      graph.root({ where, node: schemaPair(sides, 'response', [pa], [pb]), direction: 'response', in: 'payload' });
      continue;
    }
    const leaf = graph.leaf();
    const out = new Emitter(sides, leaf);
    if (ea) out.emit('a', 'event-removed', ptr, 'breaking', 'clients relying on it no longer get it');
    else out.emit('b', 'event-added', ptr, 'non-breaking');
    graph.root({ where, node: leaf, direction: 'response', in: 'payload' });
  }
}

// ---------------------------------------------------------------------------------------------------------------
// messages

const COMPONENT_NAMES: Record<string, string> = {
  schemas: 'schema',
  parameters: 'parameter',
  responses: 'response',
  requestBodies: 'request body',
  headers: 'header',
  securitySchemes: 'security scheme',
  callbacks: 'callback',
  pathItems: 'path item',
};

const MAX_SHOWN = 60;
function show(value: unknown): string {
  if (value === undefined || (value !== null && typeof value === 'object')) return '';
  const text = String(value);
  return `\`${text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN - 3)}...` : text}\``;
}

/** `GET /orders: property removed at \`note\` in the response 200 (application/json)`-like sentence at the definition. */
export function describe(entry: Entry, openapi: readonly SpecDoc[]): string {
  const segments = fromPointer(entry.pointer);
  let owner: string;
  let rest: string[];
  if (entry.document === 'asyncapi' && segments[0] === 'channels') {
    owner = `event ${segments[3] ?? ''} (channel ${segments[1] ?? ''})`;
    rest = segments.slice(4);
  } else if (segments[0] === 'components' && segments.length >= 3) {
    owner = `${COMPONENT_NAMES[segments[1]!] ?? segments[1]} ${segments[2]}`;
    rest = segments.slice(3);
  } else if (segments[0] === 'paths' && segments.length >= 2) {
    const method = segments[2] !== undefined && HTTP_METHODS.includes(segments[2]) ? segments[2] : undefined;
    owner = method ? `${method.toUpperCase()} ${segments[1]}` : `path ${segments[1]}`;
    rest = segments.slice(method ? 3 : 2);
  } else if (segments[0] === 'webhooks' && segments.length >= 2) {
    owner = `webhook ${segments[1]}`;
    rest = segments.slice(3);
  } else {
    owner = segments[0] ?? 'document';
    rest = segments.slice(1);
  }
  const verbAt = entry.kind.lastIndexOf('-');
  const subject = entry.kind.slice(0, verbAt);
  const verb = entry.kind.slice(verbAt + 1);
  const subjectText = subject.startsWith('x-') ? subject : subject.replace(/-/g, ' ');
  const base = segments.slice(0, segments.length - rest.length);
  const inside = container(rest, base, openapi);
  const field = fieldPath(rest, entry);
  const values =
    verb === 'changed'
      ? show(entry.before) && show(entry.after)
        ? `: ${show(entry.before)} -> ${show(entry.after)}`
        : ''
      : verb === 'added'
        ? show(entry.after)
          ? `: ${show(entry.after)}`
          : ''
        : show(entry.before)
          ? ` (was ${show(entry.before)})`
          : '';
  return `${owner}: ${subjectText} ${verb}${field ? ` at \`${field}\`` : ''}${inside ? ` in the ${inside}` : ''}${values}${entry.reason ? ` (${entry.reason})` : ''}`;
}

function container(rest: readonly string[], base: readonly string[], openapi: readonly SpecDoc[]): string {
  const media = (at: number) => (rest[at] === 'content' && rest[at + 1] !== undefined ? ` (${rest[at + 1]})` : '');
  if (rest[0] === 'requestBody') return `request body${media(1)}`;
  if (rest[0] === 'responses' && rest[1] !== undefined) return `response ${rest[1]}${media(2)}`;
  if (rest[0] === 'parameters' && rest[1] !== undefined) {
    const pointer = `/${[...base, 'parameters', rest[1]].map((s) => escapePointerToken(s)).join('/')}`;
    for (const doc of openapi) {
      const node = doc.at(pointer);
      if (node === undefined) continue;
      const resolved = doc.resolve(node, pointer).node;
      if (isObj(resolved) && typeof resolved.name === 'string') return `parameter ${resolved.name}`;
    }
    return 'parameter';
  }
  if (rest[0] === 'callbacks' && rest[1] !== undefined) return `callback ${rest[1]}`;
  return '';
}

/** `data.items[].name`: property names (and array items) from the schema's root to the changed node. */
function fieldPath(rest: readonly string[], entry: Entry): string {
  const start = Math.max(rest.lastIndexOf('schema'), rest.lastIndexOf('payload'));
  const names: string[] = [];
  const end = rest[rest.length - 2] === 'properties' ? rest.length : rest.length - 1;
  for (let i = start + 1; i < end; i++) {
    if (rest[i - 1] === 'properties' && (i > start + 1 || rest[i] !== undefined)) names.push(rest[i]!);
    else if (rest[i] === 'items' && rest[i - 1] !== 'properties') names.push('[]');
    else if (rest[i] === 'additionalProperties' && rest[i - 1] !== 'properties') names.push('{}');
  }
  if (entry.kind.startsWith('required-property-') && rest[rest.length - 2] === 'required')
    names.push(String(entry.after ?? entry.before ?? ''));
  return names
    .join('.')
    .replace(/\.\[\]/g, '[]')
    .replace(/\.\{\}/g, '{}');
}
