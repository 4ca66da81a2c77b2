/**
 * Response conformance (D125 paygate contract checks any API against its spec): status declared (exact, range, default), Content-Type declared for it, declared headers
 * present and valid, body valid against the declared schema (Ajv, draft 2020-12, formats), not a 5xx. A failure names
 * the check, the operation, the status and the JSON pointer of the schema in the document (plus the instance path).
 * Also the spec's validators for the request side (a pooled value or a negative variant is checked with them).
 */
import { valueAtPointer } from '@paygate/contract/json';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { isObj, responseKeyFor, token, type OperationInfo } from './document.js';
import type { Json, JsonObject } from './samples.js';
import { readXml } from './xml-reading.js';

const XML_MEDIA = /^(application|text)\/([^;,\s]+\+)?xml$/;

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as unknown as (
  ajv: Ajv2020,
) => Ajv2020;

const SPEC_ID = 'https://contract.check/openapi.json';

export interface CheckFailure {
  /** Schemathesis-style check name: status_code_conformance, response_schema_conformance, negative_data_rejection... */
  check: string;
  operationId: string;
  status: number | undefined;
  /** JSON pointer in the document of what was violated. */
  pointer: string;
  message: string;
  /** The request that produced it (`POST /books`). */
  request: string;
}

export const mediaTypeOf = (contentType: string | null): string | undefined =>
  contentType === null ? undefined : contentType.split(';')[0]!.trim().toLowerCase();
export const isJsonMedia = (mt: string): boolean => mt === 'application/json' || /\+json$/.test(mt);

export interface Conformance {
  failures: CheckFailure[];
  /** The declared response key it was counted under (undefined: undeclared). */
  key: string | undefined;
  /** The parsed JSON body (when declared JSON and parsable). */
  json: Json | undefined;
  /** Schema pointer and media type the body was validated with. */
  schemaAt: string | undefined;
  mediaType: string | undefined;
}

export class SpecValidators {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false, validateFormats: true, verbose: true });
  private readonly pointers = new WeakMap<object, string>();
  private readonly cache = new Map<string, ValidateFunction>();

  constructor(private readonly doc: JsonObject) {
    // verbose: each error carries the schema object it failed in, which `pointers` maps back to its place in the
    // document (Ajv's own schemaPath is relative to whichever referenced schema it compiled separately)
    const walk = (node: Json, at: string): void => {
      if (typeof node !== 'object' || node === null || this.pointers.has(node)) return;
      this.pointers.set(node, at);
      if (Array.isArray(node)) node.forEach((v, i) => walk(v, `${at}/${i}`));
      else for (const [k, v] of Object.entries(node)) walk(v, `${at}/${token(k)}`);
    };
    walk(doc, '#');
    addFormats(this.ajv);
    this.ajv.addSchema(doc as object, SPEC_ID);
  }

  /** The validator of the schema at a pointer of the document. */
  at(pointer: string): ValidateFunction {
    let v = this.cache.get(pointer);
    if (v === undefined) this.cache.set(pointer, (v = this.ajv.compile({ $ref: `${SPEC_ID}${pointer}` })));
    return v;
  }

  /** Whether a value fits the schema at a pointer (no pointer: anything fits). */
  accepts(pointer: string | undefined, value: unknown): boolean {
    return pointer === undefined || this.at(pointer)(value) === true;
  }

  describe(errors: readonly ErrorObject[] | null | undefined, at: string): string {
    return (errors ?? [])
      .slice(0, 6)
      .map((e) => {
        const parent = typeof e.parentSchema === 'object' && e.parentSchema !== null ? this.pointers.get(e.parentSchema) : undefined;
        const raw = e.schemaPath.startsWith(`${SPEC_ID}#`) ? e.schemaPath.slice(SPEC_ID.length) : e.schemaPath;
        const schemaPath =
          parent !== undefined
            ? `${parent}/${e.keyword}`
            : /^#\/(components|paths|webhooks)\//.test(raw)
              ? raw
              : `${at}${raw.replace(/^#/, '')}`;
        return `body${e.instancePath} ${e.message ?? ''} (schema ${schemaPath})`;
      })
      .join('; ');
  }

  /** The conformance checks of one response. */
  check(op: OperationInfo, label: string, response: Response, text: string): Conformance {
    const status = response.status;
    const failures: CheckFailure[] = [];
    const out: Conformance = { failures, key: undefined, json: undefined, schemaAt: undefined, mediaType: undefined };
    const fail = (check: string, pointer: string, message: string): Conformance => {
      failures.push({ check, operationId: op.operationId, status, pointer, message, request: label });
      return out;
    };
    const key = responseKeyFor(op, status);
    if (key === undefined)
      return fail(
        'status_code_conformance',
        `${op.at}/responses`,
        `status ${status} is not declared (declared: ${[...op.responses.keys()].join(', ')}); body: ${text.slice(0, 200)}`,
      );
    out.key = key;
    const declared = op.responses.get(key)!;
    const mt = mediaTypeOf(response.headers.get('content-type'));
    out.mediaType = mt;
    let instance: unknown = text;
    if (status >= 500) fail('not_a_server_error', declared.at, `server error ${status}: ${text.slice(0, 200)}`);
    if (declared.content.size > 0) {
      if (mt === undefined) return fail('content_type_conformance', `${declared.at}/content`, 'response has no Content-Type');
      // a declared key's parameters are not part of its type (`application/xml;charset=utf-8` is application/xml)
      const match = [...declared.content.keys()].find(
        (k) => k === mt || mediaTypeOf(k) === mt || k === '*/*' || (k.endsWith('/*') && mt.startsWith(k.slice(0, -1))),
      );
      if (match === undefined)
        return fail(
          'content_type_conformance',
          `${declared.at}/content`,
          `Content-Type ${mt} is not among ${[...declared.content.keys()].join(', ')}`,
        );
      out.schemaAt = declared.content.get(match) ?? undefined;
      if (isJsonMedia(mt) && text.length > 0) {
        try {
          instance = JSON.parse(text);
          out.json = instance as Json;
        } catch {
          return fail(
            'content_type_conformance',
            `${declared.at}/content`,
            `declared JSON but the body is not JSON: ${text.slice(0, 200)}`,
          );
        }
      }
    } else if (text.length > 0 && status !== 204 && op.method !== 'head') {
      fail('content_type_conformance', declared.at, `the response declares no content but has a body (${mt ?? 'no type'})`);
    }
    for (const h of declared.headers) {
      if (h.name.toLowerCase() === 'content-type') continue;
      const value = response.headers.get(h.name);
      if (value === null) {
        if (h.required)
          fail('response_headers_conformance', `${declared.at}/headers/${token(h.name)}`, `required header ${h.name} is missing`);
        continue;
      }
      if (h.schemaAt !== null) {
        const v = this.at(h.schemaAt);
        const coerced = /^-?\d+(\.\d+)?$/.test(value) && !v(value) ? Number(value) : value;
        if (!v(coerced))
          fail('response_headers_conformance', h.schemaAt, `header ${h.name}: ${JSON.stringify(value)} ${v.errors?.[0]?.message ?? ''}`);
      }
    }
    if (out.schemaAt !== undefined && (text.length > 0 || status !== 204)) {
      const v = this.at(out.schemaAt);
      if (!v(instance)) {
        const errors = v.errors;
        const read =
          typeof instance === 'string' && mt !== undefined && !isJsonMedia(mt) ? this.structured(mt, text, out.schemaAt) : undefined;
        if (read === undefined) fail('response_schema_conformance', out.schemaAt, this.describe(errors, out.schemaAt));
        else if (!v(read))
          fail(
            'response_schema_conformance',
            out.schemaAt,
            `(read as ${XML_MEDIA.test(mt ?? '') ? 'XML' : 'JSON'}) ${this.describe(v.errors, out.schemaAt)}`,
          );
      }
    }
    return out;
  }

  /**
   * A body in a media type that is not JSON whose schema is structured (D458 error answers in binary, image and XML media types): an XML type read as the XML its
   * schema's XML Objects describe, any other as JSON text (Swagger 2's `produces` applied to every response puts an
   * object schema under `image/png` or `text/plain`). Undefined when it reads as neither.
   */
  private structured(mediaType: string, text: string, schemaAt: string): Json | undefined {
    try {
      if (XML_MEDIA.test(mediaType)) return readXml(text, this.node(schemaAt), (n) => this.deref(n));
      return JSON.parse(text) as Json;
    } catch {
      return undefined;
    }
  }

  private node(pointer: string): Json | undefined {
    return valueAtPointer(this.doc, pointer) as Json | undefined;
  }

  private deref(node: Json | undefined): Json | undefined {
    let current = node;
    for (let i = 0; i < 16 && isObj(current) && typeof current['$ref'] === 'string'; i++)
      current = current['$ref'].startsWith('#') ? this.node(current['$ref']) : undefined;
    return current;
  }
}

/** Every name a JSON error body mentions: its keys and the identifier-like words of its strings. */
export function mentionedNames(text: string): Set<string> {
  const out = new Set<string>();
  const add = (s: string) => {
    for (const w of s.match(/[A-Za-z][A-Za-z0-9_.\-[\]]*/g) ?? []) {
      out.add(w.toLowerCase());
      for (const part of w.split(/[.[\]]+/)) if (part !== '') out.add(part.toLowerCase());
    }
  };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    add(text.slice(0, 2000));
    return out;
  }
  const visit = (node: unknown, depth: number): void => {
    if (depth > 6) return;
    if (typeof node === 'string') add(node);
    else if (Array.isArray(node)) for (const item of node.slice(0, 20)) visit(item, depth + 1);
    else if (isObj(node as Json))
      for (const [k, v] of Object.entries(node as JsonObject)) {
        add(k);
        visit(v, depth + 1);
      }
  };
  visit(parsed, 0);
  return out;
}
