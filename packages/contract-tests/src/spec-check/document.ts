/**
 * The checker's view of an OpenAPI 3.0/3.1 document (D125 paygate contract checks any API against its spec; D270 stateful contract checker): operations with their parameters, every request
 * media type with every example the spec gives, responses with their links and headers, security alternatives and
 * tags, each with the JSON pointer of where it was read. Nothing here knows Paygate.
 */
import type { SecuritySchemeSpec, SecuritySchemes } from '@paygate/client/runtime/security.js';
import type { Json, JsonObject } from './samples.js';
import { isObj, escapePointerToken, unescapePointerToken } from '@paygate/contract/json';
export { isObj } from '@paygate/contract/json';

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** A JSON pointer token. */
export const token = escapePointerToken;

export interface ParamSpec {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required: boolean;
  schema: Json | undefined;
  /** Pointer of the schema in the document (for validators). */
  schemaAt: string | undefined;
  example: Json | undefined;
  style: string | undefined;
  explode: boolean | undefined;
  /** The media type of a `content` parameter (its schema is that media type's). */
  contentType?: string;
}

export interface MediaSpec {
  mediaType: string;
  schema: Json | undefined;
  schemaAt: string;
  /** Every example the spec gives for this body, in document order (`example`, then `examples`). */
  examples: Json[];
  /** `encoding` of multipart / form bodies: property -> content type. */
  encoding: Record<string, string>;
}

export interface LinkSpec {
  name: string;
  operationId: string | undefined;
  operationRef: string | undefined;
  /** parameter name -> runtime expression or constant */
  parameters: Record<string, Json>;
}

export interface ResponseSpec {
  at: string;
  content: Map<string, string | null>;
  headers: { name: string; required: boolean; schemaAt: string | null }[];
  links: LinkSpec[];
}

export interface OperationInfo {
  operationId: string;
  method: string;
  path: string;
  at: string;
  tags: string[];
  params: ParamSpec[];
  body: { required: boolean; media: MediaSpec[] } | undefined;
  responses: Map<string, ResponseSpec>;
  /** Security alternatives (OR of ANDs) by scheme name; [] = public; [[]] among them = anonymous allowed. */
  security: string[][];
}

export type Resolver = ReturnType<typeof makeResolver>;

/** Resolves `#/...` pointers in the bundled document. */
export function makeResolver(doc: JsonObject) {
  const at = (pointer: string): Json | undefined => {
    let node: Json | undefined = doc;
    for (const raw of pointer
      .replace(/^#\/?/, '')
      .split('/')
      .filter((p) => p !== '')) {
      const key = unescapePointerToken(decodeURIComponent(raw));
      node = isObj(node) ? node[key] : Array.isArray(node) ? node[Number(key)] : undefined;
    }
    return node;
  };
  /** Follows `$ref`s; returns the node and its pointer. */
  const follow = (node: Json | undefined, where: string): { node: Json | undefined; at: string } => {
    let current = node;
    let pointer = where;
    for (let i = 0; i < 20 && isObj(current) && typeof current['$ref'] === 'string' && current['$ref'].startsWith('#'); i++) {
      pointer = current['$ref'];
      current = at(pointer);
    }
    return { node: current, at: pointer };
  };
  return { at, follow, deref: (node: Json | undefined) => follow(node, '').node };
}

/** OpenAPI 3.0 `nullable: true` as 2020-12 `type: [T, 'null']`, so one Ajv validates both versions. */
export function upgradeNullable(node: Json): Json {
  if (Array.isArray(node)) return node.map(upgradeNullable);
  if (!isObj(node)) return node;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(node)) out[k] = upgradeNullable(v);
  if (out['nullable'] === true) {
    if (typeof out['type'] === 'string') out['type'] = [out['type'], 'null'];
    else if (Array.isArray(out['enum']) && !out['enum'].includes(null)) out['enum'] = [...out['enum'], null];
    delete out['nullable'];
  }
  return out;
}

function examplesOf(node: JsonObject, r: Resolver): Json[] {
  const out: Json[] = [];
  if (node['example'] !== undefined) out.push(node['example']);
  if (isObj(node['examples']))
    for (const ex of Object.values(node['examples'])) {
      const e = r.deref(ex);
      if (isObj(e) && e['value'] !== undefined) out.push(e['value']);
    }
  return out;
}

function readLinks(response: JsonObject, r: Resolver): LinkSpec[] {
  const out: LinkSpec[] = [];
  for (const [name, raw] of Object.entries(isObj(response['links']) ? response['links'] : {})) {
    const link = r.deref(raw);
    if (!isObj(link)) continue;
    out.push({
      name,
      operationId: typeof link['operationId'] === 'string' ? link['operationId'] : undefined,
      operationRef: typeof link['operationRef'] === 'string' ? link['operationRef'] : undefined,
      parameters: isObj(link['parameters']) ? link['parameters'] : {},
    });
  }
  return out;
}

export function readOperations(doc: JsonObject, r: Resolver): OperationInfo[] {
  const out: OperationInfo[] = [];
  const paths = isObj(doc['paths']) ? doc['paths'] : {};
  const globalSecurity = Array.isArray(doc['security']) ? doc['security'] : [];
  for (const [path, rawItem] of Object.entries(paths)) {
    const item = r.follow(rawItem, `#/paths/${token(path)}`);
    if (!isObj(item.node)) continue;
    for (const method of HTTP_METHODS) {
      const op = item.node[method];
      if (!isObj(op)) continue;
      const at = `#/paths/${token(path)}/${method}`;
      const security = (Array.isArray(op['security']) ? op['security'] : globalSecurity).flatMap((req) =>
        isObj(req) ? [Object.keys(req)] : [],
      );
      out.push({
        operationId: typeof op['operationId'] === 'string' ? op['operationId'] : `${method.toUpperCase()} ${path}`,
        method,
        path,
        at,
        tags: Array.isArray(op['tags']) ? op['tags'].filter((t): t is string => typeof t === 'string') : [],
        params: readParams({ node: item.node, at: item.at }, op, at, r),
        body: readBody(op, at, r),
        responses: readResponses(op, at, r),
        security,
      });
    }
  }
  return out;
}

/** The path item's parameters, then the operation's (an operation's parameter replaces the path item's of that name). */
function readParams(item: { node: JsonObject; at: string }, op: JsonObject, at: string, r: Resolver): ParamSpec[] {
  const params = new Map<string, ParamSpec>();
  const rawParams: [Json, string][] = [
    ...(Array.isArray(item.node['parameters']) ? item.node['parameters'] : []).map((p, i): [Json, string] => [
      p,
      `${item.at}/parameters/${i}`,
    ]),
    ...(Array.isArray(op['parameters']) ? op['parameters'] : []).map((p, i): [Json, string] => [p, `${at}/parameters/${i}`]),
  ];
  for (const [raw, where] of rawParams) {
    const resolved = r.follow(raw, where);
    const p = resolved.node;
    if (!isObj(p) || typeof p['name'] !== 'string' || typeof p['in'] !== 'string') continue;
    const examples = examplesOf(p, r);
    // a `content` parameter (OpenAPI's alternative to `schema`): its one media type's schema, sent as one text
    const content = p['schema'] === undefined && isObj(p['content']) ? Object.entries(p['content'])[0] : undefined;
    const contentSchema = content !== undefined && isObj(content[1]) ? content[1]['schema'] : undefined;
    params.set(`${p['in']}:${p['name'].toLowerCase()}`, {
      name: p['name'],
      in: p['in'] as ParamSpec['in'],
      required: p['required'] === true || p['in'] === 'path',
      schema: content !== undefined ? contentSchema : p['schema'],
      schemaAt:
        p['schema'] !== undefined
          ? `${resolved.at}/schema`
          : contentSchema !== undefined
            ? `${resolved.at}/content/${token(content![0])}/schema`
            : undefined,
      example: examples[0],
      style: typeof p['style'] === 'string' ? p['style'] : undefined,
      explode: typeof p['explode'] === 'boolean' ? p['explode'] : undefined,
      ...(content !== undefined ? { contentType: content[0] } : {}),
    });
  }
  return [...params.values()];
}

/** The request body: whether it is required, and each media type with its schema, examples and multipart encodings. */
function readBody(op: JsonObject, at: string, r: Resolver): OperationInfo['body'] {
  const rb = r.follow(op['requestBody'], `${at}/requestBody`);
  if (!isObj(rb.node) || !isObj(rb.node['content'])) return undefined;
  const media: MediaSpec[] = [];
  for (const [mediaType, rawMedia] of Object.entries(rb.node['content'])) {
    const m = isObj(rawMedia) ? rawMedia : {};
    const encoding: Record<string, string> = {};
    for (const [prop, enc] of Object.entries(isObj(m['encoding']) ? m['encoding'] : {}))
      if (isObj(enc) && typeof enc['contentType'] === 'string') encoding[prop] = enc['contentType'];
    media.push({
      mediaType,
      schema: m['schema'],
      schemaAt: `${rb.at}/content/${token(mediaType)}/schema`,
      examples: examplesOf(m, r),
      encoding,
    });
  }
  return { required: rb.node['required'] === true, media };
}

/** Declared responses by status key (`200`, `4XX`, `default`): schema pointers per media type, headers, links. */
function readResponses(op: JsonObject, at: string, r: Resolver): OperationInfo['responses'] {
  const responses: OperationInfo['responses'] = new Map();
  for (const [status, rawResponse] of Object.entries(isObj(op['responses']) ? op['responses'] : {})) {
    const resolved = r.follow(rawResponse, `${at}/responses/${token(status)}`);
    if (!isObj(resolved.node)) continue;
    const content = new Map<string, string | null>();
    for (const [mt, m] of Object.entries(isObj(resolved.node['content']) ? resolved.node['content'] : {})) {
      content.set(mt.toLowerCase(), isObj(m) && m['schema'] !== undefined ? `${resolved.at}/content/${token(mt)}/schema` : null);
    }
    const headers: ResponseSpec['headers'] = [];
    for (const [name, rawHeader] of Object.entries(isObj(resolved.node['headers']) ? resolved.node['headers'] : {})) {
      const h = r.follow(rawHeader, `${resolved.at}/headers/${token(name)}`);
      if (!isObj(h.node)) continue;
      headers.push({ name, required: h.node['required'] === true, schemaAt: h.node['schema'] !== undefined ? `${h.at}/schema` : null });
    }
    responses.set(status.toUpperCase() === 'DEFAULT' ? 'default' : status.toUpperCase(), {
      at: resolved.at,
      content,
      headers,
      links: readLinks(resolved.node, r),
    });
  }
  return responses;
}

export function securitySchemes(doc: JsonObject, r: Resolver): SecuritySchemes {
  const out: Record<string, SecuritySchemeSpec> = {};
  const components = isObj(doc['components']) ? doc['components'] : {};
  for (const [name, raw] of Object.entries(isObj(components['securitySchemes']) ? components['securitySchemes'] : {})) {
    const s = r.deref(raw);
    if (!isObj(s)) continue;
    if (s['type'] === 'apiKey')
      out[name] = { type: 'apiKey', in: s['in'] === 'query' || s['in'] === 'cookie' ? s['in'] : 'header', name: String(s['name'] ?? '') };
    else if (s['type'] === 'http') out[name] = { type: 'http', scheme: String(s['scheme'] ?? 'bearer').toLowerCase() };
    else if (s['type'] === 'oauth2' || s['type'] === 'openIdConnect' || s['type'] === 'mutualTLS') out[name] = { type: s['type'] };
  }
  return out;
}

/** The declared response key for a status: exact, then range, then default. */
export function responseKeyFor(op: OperationInfo, status: number): string | undefined {
  for (const key of [String(status), `${Math.floor(status / 100)}XX`, 'default']) if (op.responses.has(key)) return key;
  return undefined;
}

/** A path template as a regular expression capturing its parameters by name. */
export function pathMatcher(path: string): { re: RegExp; names: string[] } {
  const names: string[] = [];
  const source = path
    .split(/(\{[^}]+\})/)
    .map((part) => {
      const m = /^\{([^}]+)\}$/.exec(part);
      if (m) {
        names.push(m[1]!);
        return '([^/]+)';
      }
      return part.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
    })
    .join('');
  return { re: new RegExp(`^${source}$`), names };
}
