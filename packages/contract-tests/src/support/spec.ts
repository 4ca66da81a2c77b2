/**
 * The bundled OpenAPI document the contract suite tests against, and a flat index of its operations.
 *
 * The document is `apiDocument` from @paygate/contract: the generator's bundle of openapi/openapi.yaml (refs kept as
 * internal `#/components/...` pointers, so violations can name the schema they broke) as the runtimes read it: no
 * prose, the examples kept (`info.x-embedded-examples`, D158). `npm run generate:check` guarantees it matches the YAML.
 */
// By package name, as the published suite needs; in this repository vitest's global setup (coverage.ts imports this)
// resolves it to the sources through the "source" condition of vitest.config.ts's `__vitest__` environment.
import { apiDocument } from '@paygate/contract';
import { escapePointerToken, unescapePointerToken } from '@paygate/contract/json';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export const spec = apiDocument as unknown as JsonObject;

/** Escape one JSON-pointer token (RFC 6901). */
export function ptr(token: string): string {
  return escapePointerToken(token);
}

/** Resolve an internal `#/...` pointer. */
export function resolvePointer(pointer: string): Json {
  if (!pointer.startsWith('#')) throw new Error(`only internal refs are supported: ${pointer}`);
  let node: Json = spec;
  for (const raw of pointer.slice(1).split('/').slice(1)) {
    const key = unescapePointerToken(raw);
    if (node === null || typeof node !== 'object') throw new Error(`bad pointer ${pointer}`);
    node = Array.isArray(node) ? (node[Number(key)] as Json) : (node[key] as Json);
    if (node === undefined) throw new Error(`unresolvable pointer ${pointer}`);
  }
  return node;
}

/** Follow `$ref` chains; returns the node and the pointer it lives at. */
export function deref(node: Json, at: string): { node: Json; at: string } {
  let current = node;
  let where = at;
  for (let i = 0; i < 20 && current && typeof current === 'object' && !Array.isArray(current) && typeof current['$ref'] === 'string'; i++) {
    where = current['$ref'];
    current = resolvePointer(where);
  }
  return { node: current, at: where };
}

export interface ResponseHeaderSpec {
  name: string;
  required: boolean;
  /** Pointer of the header's schema. */
  schemaAt: string;
  schema: JsonObject;
}

export interface ResponseSpec {
  status: string;
  /** Pointer of the response object (after $ref). */
  at: string;
  /** media type -> pointer of its schema (null when the media type has no schema). */
  content: Map<string, string | null>;
  headers: ResponseHeaderSpec[];
}

export interface ParameterSpec {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required: boolean;
  schema: JsonObject;
  schemaAt: string;
}

export interface OperationSpec {
  operationId: string;
  method: HttpMethod;
  /** Path template, e.g. /pg/orders/{order_id} */
  path: string;
  /** Pointer of the operation object, e.g. #/paths/~1pg~1orders~1/post */
  at: string;
  regex: RegExp;
  /** Whether the operation requires credentials (security not `[]`). */
  secured: boolean;
  sandboxOnly: boolean;
  parameters: ParameterSpec[];
  /** Request media type -> pointer of its schema. */
  requestBody: { required: boolean; content: Map<string, string | null> } | null;
  responses: Map<string, ResponseSpec>;
}

function asObject(value: Json | undefined): JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : {};
}

function buildOperations(): OperationSpec[] {
  const out: OperationSpec[] = [];
  const globalSecurity = spec['security'];
  for (const [path, rawItem] of Object.entries(asObject(spec['paths']))) {
    const itemAt = `#/paths/${ptr(path)}`;
    const item = asObject(deref(rawItem, itemAt).node);
    const regex = new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '([^/]+)')}$`);
    for (const method of HTTP_METHODS) {
      const opNode = item[method];
      if (!opNode) continue;
      const op = asObject(opNode);
      const at = `${itemAt}/${method}`;
      const parameters: ParameterSpec[] = [];
      const rawParams = [...((item['parameters'] as Json[] | undefined) ?? []), ...((op['parameters'] as Json[] | undefined) ?? [])];
      rawParams.forEach((p, i) => {
        const { node, at: pAt } = deref(p, `${at}/parameters/${i}`);
        const param = asObject(node);
        const schemaRef = deref(param['schema'] ?? {}, `${pAt}/schema`);
        parameters.push({
          name: String(param['name']),
          in: param['in'] as ParameterSpec['in'],
          required: param['required'] === true,
          schema: asObject(schemaRef.node),
          schemaAt: `${pAt}/schema`,
        });
      });
      let requestBody: OperationSpec['requestBody'] = null;
      if (op['requestBody']) {
        const { node, at: rbAt } = deref(op['requestBody'], `${at}/requestBody`);
        const rb = asObject(node);
        const content = new Map<string, string | null>();
        for (const [mt, media] of Object.entries(asObject(rb['content']))) {
          content.set(mt, asObject(media)['schema'] !== undefined ? `${rbAt}/content/${ptr(mt)}/schema` : null);
        }
        requestBody = { required: rb['required'] === true, content };
      }
      const responses = new Map<string, ResponseSpec>();
      for (const [status, rawResp] of Object.entries(asObject(op['responses']))) {
        const { node, at: rAt } = deref(rawResp, `${at}/responses/${status}`);
        const resp = asObject(node);
        const content = new Map<string, string | null>();
        for (const [mt, media] of Object.entries(asObject(resp['content']))) {
          content.set(mt, asObject(media)['schema'] !== undefined ? `${rAt}/content/${ptr(mt)}/schema` : null);
        }
        const headers: ResponseHeaderSpec[] = [];
        for (const [name, rawHeader] of Object.entries(asObject(resp['headers']))) {
          const { node: hNode, at: hAt } = deref(rawHeader, `${rAt}/headers/${ptr(name)}`);
          const header = asObject(hNode);
          headers.push({
            name,
            required: header['required'] === true,
            schemaAt: `${hAt}/schema`,
            schema: asObject(deref(header['schema'] ?? {}, `${hAt}/schema`).node),
          });
        }
        responses.set(status, { status, at: rAt, content, headers });
      }
      const security = op['security'] ?? globalSecurity;
      out.push({
        operationId: String(op['operationId']),
        method,
        path,
        at,
        regex,
        secured: Array.isArray(security) && security.length > 0 && !security.some((req) => Object.keys(asObject(req)).length === 0),
        sandboxOnly: path.startsWith('/sandbox/'),
        parameters,
        requestBody,
        responses,
      });
    }
  }
  return out;
}

export const operations: readonly OperationSpec[] = buildOperations();

export const operationsById: ReadonlyMap<string, OperationSpec> = new Map(operations.map((o) => [o.operationId, o]));

export function operation(operationId: string): OperationSpec {
  const op = operationsById.get(operationId);
  if (!op) throw new Error(`no operation ${operationId} in the spec`);
  return op;
}

/** Path templates, literal ones first so `/pg/orders/` never matches a templated sibling. */
const byPath = [...new Set(operations.map((o) => o.path))].sort((a, b) => (a.includes('{') ? 1 : 0) - (b.includes('{') ? 1 : 0));

/** The path template a concrete path matches, if any. */
export function matchPath(pathname: string): string | undefined {
  return byPath.find((p) => operations.find((o) => o.path === p)!.regex.test(pathname));
}

/** The operation for a method + concrete path, if the spec declares one. */
export function findOperation(method: string, pathname: string): OperationSpec | undefined {
  const template = matchPath(pathname);
  if (!template) return undefined;
  return operations.find((o) => o.path === template && o.method === method.toLowerCase());
}

/** Fill a path template. */
export function fillPath(template: string, params: Record<string, string>): string {
  return template.replace(/\{([^}]+)\}/g, (_m, name: string) => {
    const v = params[name];
    if (v === undefined) throw new Error(`missing path parameter ${name} for ${template}`);
    return encodeURIComponent(v);
  });
}
