/**
 * Probes a scaffold started from any spec (issue 30: the scaffold answers every operation in the spec's own
 * declared shapes): per operation a valid request sampled from its schemas, an invalid one (a body, or a parameter,
 * the schema must refuse; else an unknown query parameter), one without credentials and one with refused
 * credentials; each answer read against the spec: the status declared (exact, a range in any case, `default`), the
 * content type declared for it, the body valid against the declared schema (Ajv, JSON Schema 2020-12).
 *
 * Nothing here knows the scaffold: it reads the document and speaks HTTP.
 */
import addFormatsModule from 'ajv-formats';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { enumOfDeclaredType } from '../../../generators/src/emit/untyped-enum.js';
import { negativeOf, sampleOf, type Accepts, type Json, type JsonObject } from '../../../packages/contract-tests/src/spec-check/samples.js';
import { paramText, serializeParam, serializePathParam } from '../../../packages/contract-tests/src/spec-check/request/serialize-param.js';
import { isObj, escapePointerToken, valueAtPointer } from '@paygate/contract/json';
import { readXml } from '../../../packages/contract-tests/src/spec-check/xml-reading.js';

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as unknown as (
  ajv: Ajv2020,
) => Ajv2020;

/** Headers Node's fetch (undici) sends when the request does not set them. */
const FETCH_DEFAULT_HEADERS = new Set(['accept-language', 'accept-encoding', 'user-agent', 'sec-fetch-mode']);

/**
 * Headers of the connection and the message's framing, not of the API: fetch writes them itself (`Content-Length` from
 * the body) or refuses them (undici: `transfer-encoding`, `keep-alive`, `upgrade` invalid, `expect` not supported). A
 * document may still declare one as a parameter (VTEX's `Content-Length`, example 2183; HERE's, `type: number`): a
 * sample of it beside a body of another length is a request undici will not send
 * (`UND_ERR_REQ_CONTENT_LENGTH_MISMATCH`) or one the server reads as a malformed next request, so the probe leaves
 * them to fetch (D414, "The corpus probe's own HTTP failures are not the scaffold's").
 */
export const FETCH_OWN_HEADERS: ReadonlySet<string> = new Set([
  'content-length',
  'host',
  'connection',
  'transfer-encoding',
  'expect',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
]);

/** Keywords that say something of a value's type or shape: a schema with none of them accepts any value. */
const SHAPE_KEYWORDS = [
  'type',
  'properties',
  'additionalProperties',
  'patternProperties',
  'items',
  'prefixItems',
  'required',
  'allOf',
  'oneOf',
  'anyOf',
  'not',
  'enum',
  'const',
  'default',
  'example',
  'examples',
  '$ref',
] as const;

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace'] as const;
/** Newline-delimited JSON media types (ndjson, JSON Lines): one JSON text per line. */
const NDJSON = /^application\/(x-)?(ndjson|jsonl|jsonlines)\b/i;
const token = escapePointerToken;

export type ProbeKind = 'valid' | 'invalid' | 'unauthenticated' | 'refused';

interface Parameter {
  name: string;
  in: string;
  required: boolean;
  /** The `schema`, or the schema of a `content` parameter's media type. */
  schema: Json | undefined;
  style: string | undefined;
  explode: boolean | undefined;
  /** A `content` parameter's media type. */
  contentType: string | undefined;
}

export interface ProbedOperation {
  operationId: string;
  method: string;
  path: string;
  parameters: Parameter[];
  body: { mediaType: string; schema: Json | undefined; required: boolean } | undefined;
  /** Alternatives (OR) of scheme names (AND); [] = public. */
  security: string[][];
  /** Status key as written -> pointer of the response and its media types. */
  responses: Map<string, { at: string; content: Map<string, string | null> }>;
}

export interface ProbeRequest {
  operation: ProbedOperation;
  kind: ProbeKind;
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
  /** `GET /v1/files/sample (query depth: a string where number is declared)`. */
  label: string;
  /** The field an invalid request breaks: its name must appear in the answer. */
  field?: string;
}

export interface ProbeAnswer {
  request: ProbeRequest;
  status: number;
  /** The media type without parameters, or null. */
  contentType: string | null;
  text: string;
  body: unknown;
  /** The response key the status matches (`400`, `4XX`, `default`), undefined when the operation declares none. */
  declared: string | undefined;
  /** What does not conform: content type, schema violations (empty when it conforms). */
  violations: string[];
}

/** The spec's view needed to probe: operations, a `$ref` resolver and one Ajv over the whole document. */
export class SpecProbe {
  readonly operations: ProbedOperation[];
  private readonly ajv: Ajv2020;
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(private readonly document: JsonObject) {
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false, validateFormats: true });
    addFormats(this.ajv);
    this.ajv.addSchema(document as object, 'spec');
    this.operations = this.readOperations();
  }

  readonly deref = (node: Json | undefined): Json | undefined => {
    let current = node;
    for (let i = 0; i < 16 && isObj(current) && typeof current['$ref'] === 'string'; i++) current = this.at(current['$ref']);
    return current;
  };

  /** An array's item by its index too (Codat's `.../parameters/0`, DigitalOcean's `.../allOf/0/properties/...`). */
  private at(pointer: string): Json | undefined {
    return valueAtPointer(this.document, pointer) as Json | undefined;
  }

  /** Where each object of the document sits (its JSON pointer), built on first use: what `accepts` validates against. */
  private pointers: WeakMap<object, string> | undefined;

  private pointerOf(node: object): string | undefined {
    if (this.pointers === undefined) {
      const pointers = new WeakMap<object, string>();
      const walk = (value: Json, at: string, depth: number): void => {
        if (value === null || typeof value !== 'object' || depth > 256 || pointers.has(value)) return;
        pointers.set(value, at);
        if (Array.isArray(value)) value.forEach((item, i) => walk(item, `${at}/${i}`, depth + 1));
        else for (const [key, item] of Object.entries(value)) walk(item, `${at}/${token(key)}`, depth + 1);
      };
      walk(this.document, '#', 0);
      this.pointers = pointers;
    }
    return this.pointers.get(node);
  }

  /**
   * Whether a schema of the document accepts a value (the sampler's check of the spec's own examples): true when the
   * schema is not one of the document's objects or cannot be compiled (nothing to check it with).
   */
  readonly accepts: Accepts = (schema, value) => {
    const pointer = this.pointerOf(schema);
    if (pointer === undefined) return true;
    try {
      return this.validate(pointer, value).length === 0;
    } catch {
      return true;
    }
  };

  /** A value the schema accepts: the spec's own example when it fits its schema, else a generated one. */
  sample(schema: Json | undefined): Json {
    return sampleOf(schema, this.deref, 0, this.accepts);
  }

  /**
   * A parameter's value: as `sample`, never empty (a query parameter sent empty is refused unless it allows empty
   * values, and image-charts' required `chl` has `default: ""`).
   */
  private parameterSample(schema: Json | undefined): Json {
    // an enum of another type than the parameter's is read as its text, as the scaffold's validators read it (D470 a
    // parameter enum of another type read as its text): a value of that enum, written in the declared type
    const declared = this.deref(schema);
    const read = enumOfDeclaredType(declared) as Json;
    if (read !== declared && isObj(read) && Array.isArray(read['enum'])) {
      const values = read['enum'];
      return sampleOf(read, this.deref, 0, (s, value) => value !== '' && (s === read ? values.includes(value) : this.accepts(s, value)));
    }
    // a schema that says nothing of the value's shape (Sinao's `public_key`, `{x-ype: string}`: a typo of `type`)
    // takes any value; the sampler's default for it, `{}`, is an exploded object of no keys, so a required query
    // parameter was not sent at all and the scaffold rightly refused the "valid" request. A parameter is text: send one.
    if (isObj(declared) && !SHAPE_KEYWORDS.some((k) => declared[k] !== undefined)) return 'sample';
    return sampleOf(schema, this.deref, 0, (s, value) => value !== '' && this.accepts(s, value));
  }

  /** A parameter's sampled value as sent: JSON text for a parameter declared with a JSON media type. */
  private parameterText(p: Parameter): string {
    const value = this.parameterSample(p.schema);
    return p.contentType !== undefined && /json/i.test(p.contentType) ? JSON.stringify(value) : scalar(value);
  }

  /**
   * A path parameter's segment as its style writes it (D413, "Object path parameters read by their style"); an object
   * sampled empty gets every property it declares, since an empty segment routes nowhere (Jellyfin's `version`, whose
   * properties are all optional).
   */
  private pathText(p: Parameter): string {
    if (p.contentType !== undefined) return encodeURIComponent(this.parameterText(p));
    let value = this.parameterSample(p.schema);
    const schema = this.deref(p.schema);
    if (isObj(value) && Object.keys(value).length === 0 && isObj(schema) && isObj(schema['properties']))
      value = Object.fromEntries(Object.entries(schema['properties']).map(([name, property]) => [name, this.parameterSample(property)]));
    return serializePathParam(p, value);
  }

  /** Validates a value against the schema at `pointer`; the violations, or [] when it is valid. */
  validate(pointer: string, value: unknown): string[] {
    let validate = this.compiled.get(pointer);
    if (validate === undefined) this.compiled.set(pointer, (validate = this.ajv.compile({ $ref: `spec${pointer}` })));
    return validate(value) ? [] : (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`);
  }

  private readOperations(): ProbedOperation[] {
    const out: ProbedOperation[] = [];
    const globalSecurity = Array.isArray(this.document['security']) ? this.document['security'] : [];
    for (const [path, rawItem] of Object.entries(isObj(this.document['paths']) ? this.document['paths'] : {})) {
      const item = this.deref(rawItem);
      if (!isObj(item)) continue;
      for (const method of METHODS) {
        const op = item[method];
        if (!isObj(op)) continue;
        const parameters = new Map<string, Parameter>();
        for (const raw of [
          ...(Array.isArray(item['parameters']) ? item['parameters'] : []),
          ...(Array.isArray(op['parameters']) ? op['parameters'] : []),
        ]) {
          const p = this.deref(raw);
          if (!isObj(p) || typeof p['name'] !== 'string' || typeof p['in'] !== 'string') continue;
          // OpenAPI: a header parameter named Accept, Content-Type or Authorization SHALL be ignored (VTEX declares
          // `Content-Type` as one: sent beside the body's own, the two made a 415)
          if (p['in'] === 'header' && ['accept', 'content-type', 'authorization'].includes(p['name'].toLowerCase())) continue;
          if (p['in'] === 'header' && FETCH_OWN_HEADERS.has(p['name'].toLowerCase())) continue;
          // a parameter declared with `content` (Stream's path parameters) has its schema in its one media type
          const content = p['schema'] === undefined && isObj(p['content']) ? Object.entries(p['content'])[0] : undefined;
          // header names are case-insensitive: the operation's `x-amz-content-sha256` overrides its path item's
          // `X-Amz-Content-Sha256` (sent both, fetch joined the two values into one header no schema accepts)
          parameters.set(`${p['in']} ${p['in'] === 'header' ? p['name'].toLowerCase() : p['name']}`, {
            name: p['name'],
            in: p['in'],
            required: p['required'] === true || p['in'] === 'path',
            schema: content === undefined ? p['schema'] : isObj(content[1]) ? content[1]['schema'] : undefined,
            style: typeof p['style'] === 'string' ? p['style'] : undefined,
            explode: typeof p['explode'] === 'boolean' ? p['explode'] : undefined,
            contentType: content?.[0],
          });
        }
        let body: ProbedOperation['body'];
        const rb = this.deref(op['requestBody']);
        if (isObj(rb) && isObj(rb['content'])) {
          // a concrete JSON media type, `application/json` first: a range (`application/*+json`) is no Content-Type a
          // client can send
          const json = Object.keys(rb['content']).filter((t) => /json/i.test(t) && !t.includes('*'));
          const mediaType = json.find((t) => /^application\/json\b/i.test(t)) ?? json[0];
          const media = mediaType === undefined ? undefined : rb['content'][mediaType];
          if (mediaType !== undefined)
            body = { mediaType, schema: isObj(media) ? media['schema'] : undefined, required: rb['required'] === true };
        }
        const responses: ProbedOperation['responses'] = new Map();
        for (const [status, raw] of Object.entries(isObj(op['responses']) ? op['responses'] : {})) {
          const at = isObj(raw) && typeof raw['$ref'] === 'string' ? raw['$ref'] : `#/paths/${token(path)}/${method}/responses/${status}`;
          const response = this.deref(raw);
          const content = new Map<string, string | null>();
          for (const [mt, media] of Object.entries(isObj(response) && isObj(response['content']) ? response['content'] : {}))
            content.set(mt.toLowerCase(), isObj(media) && media['schema'] !== undefined ? `${at}/content/${token(mt)}/schema` : null);
          responses.set(status, { at, content });
        }
        const security = (Array.isArray(op['security']) ? op['security'] : globalSecurity).flatMap((r) =>
          isObj(r) ? [Object.keys(r)] : [],
        );
        out.push({
          operationId: String(op['operationId'] ?? `${method} ${path}`),
          method,
          path,
          parameters: [...parameters.values()],
          body,
          security,
          responses,
        });
      }
    }
    return out;
  }

  /** The response key an operation declares for a status: exact, then its range in any case, then `default`. */
  declaredKey(operation: ProbedOperation, status: number): string | undefined {
    const exact = String(status);
    for (const key of [exact, `${exact[0]}XX`, `${exact[0]}xx`, 'default']) if (operation.responses.has(key)) return key;
    return undefined;
  }

  /** Whether the operation declares an answer for this status (exact, range or default). */
  declares(operation: ProbedOperation, status: number): boolean {
    return this.declaredKey(operation, status) !== undefined;
  }

  /** Pointers of the JSON schemas the document declares for a status on any operation (exact key only). */
  documentSchemas(status: number): string[] {
    const out = new Set<string>();
    for (const op of this.operations)
      for (const ptr of op.responses.get(String(status))?.content.values() ?? []) if (ptr !== null) out.add(ptr);
    return [...out];
  }

  /** Reads one answer against the operation's declared responses. */
  conformance(
    operation: ProbedOperation,
    status: number,
    contentType: string | null,
    text: string,
  ): Pick<ProbeAnswer, 'declared' | 'violations' | 'body'> {
    let body: unknown = text;
    if (contentType !== null && /json/.test(contentType) && text !== '') {
      try {
        body = JSON.parse(text);
      } catch {
        return { declared: this.declaredKey(operation, status), violations: [`declared JSON but not JSON: ${text.slice(0, 120)}`], body };
      }
    }
    const declared = this.declaredKey(operation, status);
    if (declared === undefined) return { declared, violations: [], body };
    const { content } = operation.responses.get(declared)!;
    if (content.size === 0) return { declared, violations: text === '' ? [] : ['a body where none is declared'], body };
    // the answer's media type without parameters against each declared key's (`application/json;charset=utf-8` is
    // application/json: the parameters of a declared key are not part of the type)
    const essence = (mediaType: string): string => mediaType.split(';')[0]!.trim().toLowerCase();
    const key = contentType === null ? undefined : [...content.keys()].find((k) => k === contentType || essence(k) === contentType);
    if (key === undefined)
      return { declared, violations: [`content type ${contentType ?? 'none'} is not among ${[...content.keys()].join(', ')}`], body };
    const schema = content.get(key);
    if (schema === null || schema === undefined) return { declared, violations: [], body };
    return { declared, ...this.readAgainst(schema, contentType, text, body) };
  }

  /**
   * An answer's body read against one schema: as it is, else (a media type that is not JSON declared with a structured
   * schema: `text/plain`, `image/png`, `application/octet-stream` holding an object, Swagger 2's `produces` applied to
   * every response) as the JSON text of that structure; an XML one as the XML its schema's XML Objects describe (D458
   * error answers in binary, image and XML media types).
   */
  readAgainst(schema: string, contentType: string | null, text: string, body: unknown): { violations: string[]; body: unknown } {
    const violations = this.validate(schema, body);
    if (violations.length > 0 && typeof body === 'string') {
      const xml = /^(application|text)\/([^;,\s]+\+)?xml$/i.test(contentType ?? '');
      try {
        const parsed: unknown = xml ? readXml(text, this.at(schema), this.deref) : JSON.parse(text);
        const read = this.validate(schema, parsed);
        if (read.length === 0) return { violations: [], body: parsed };
        if (xml) return { violations: read.map((v) => `(read as XML) ${v}`), body: parsed };
      } catch {
        // not JSON (or XML) text: the violations as a text stand
      }
    }
    return { violations, body };
  }

  /** The requests of one kind for an operation (none when the kind does not apply, e.g. no security). */
  request(
    operation: ProbedOperation,
    kind: ProbeKind,
    baseUrl: string,
    credentials: Record<string, string>,
    refused: Record<string, string>,
  ): ProbeRequest | undefined {
    const secured = operation.security.length > 0 && !operation.security.some((alternative) => alternative.length === 0);
    if ((kind === 'unauthenticated' || kind === 'refused') && !secured) return undefined;
    let path = operation.path;
    const query: [string, string][] = [];
    const headers: Record<string, string> = {
      ...(kind === 'valid' || kind === 'invalid' ? credentials : kind === 'refused' ? refused : {}),
    };
    const carried = new Set(Object.keys(headers).map((name) => name.toLowerCase()));
    for (const p of operation.parameters) {
      if (p.in === 'path') path = path.replaceAll(`{${p.name}}`, this.pathText(p));
      // a header the credentials carry, declared as a parameter too (VTEX's `X-VTEX-API-AppKey`): a client sends it
      // once, so the credential is its value (a sample beside it made one header of both values, refused)
      else if (p.in === 'header' && carried.has(p.name.toLowerCase())) continue;
      else if (p.required && p.in === 'query' && p.contentType !== undefined) query.push([p.name, this.parameterText(p)]);
      // as its style says (D456 query objects and arrays of objects serialised): an exploded object's properties are keys
      else if (p.required && p.in === 'query') query.push(...serializeParam(p, this.parameterSample(p.schema)));
      // fetch sends some headers of its own (`accept-language: *`): a declared one is sent sampled, so the scaffold
      // reads the value the spec allows rather than fetch's default
      else if (p.in === 'header' && (p.required || FETCH_DEFAULT_HEADERS.has(p.name.toLowerCase())))
        headers[p.name] = this.parameterText(p);
    }
    path = this.sendable(operation, path, query, headers);
    let body: string | undefined;
    if (operation.body !== undefined && (operation.body.required || kind === 'valid')) {
      headers['content-type'] = operation.body.mediaType;
      body = this.bodyText(operation.body, this.sample(operation.body.schema));
    }
    let label = `${operation.method.toUpperCase()} ${path}`;
    let field: string | undefined;
    if (kind === 'invalid') {
      const broken = this.breakRequest(operation, query);
      if (broken === undefined) return undefined;
      field = broken.field;
      label += ` (${broken.reason})`;
      if (broken.body !== undefined) {
        headers['content-type'] = operation.body!.mediaType;
        body = broken.body;
      }
    }
    if (kind === 'unauthenticated') label += ' (no credentials)';
    if (kind === 'refused') label += ' (refused credentials)';
    const qs = query.length > 0 ? `?${new URLSearchParams(query).toString()}` : '';
    return {
      operation,
      kind,
      method: operation.method.toUpperCase(),
      url: `${baseUrl}${path}${qs}`,
      headers,
      ...(body === undefined ? {} : { body }),
      label,
      ...(field === undefined ? {} : { field }),
    };
  }

  /**
   * The path a client sends for a template with a query part or a `#` fragment (D410 every path template real specs use is routed): the query part's keys and the
   * fragment's named parameters go into the query (or headers) with the values the template fixes, or samples.
   */
  private sendable(operation: ProbedOperation, path: string, query: [string, string][], headers: Record<string, string>): string {
    const hash = path.indexOf('#');
    const fragment = hash === -1 ? '' : path.slice(hash + 1);
    let base = hash === -1 ? path : path.slice(0, hash);
    const question = base.indexOf('?');
    const written = question === -1 ? '' : base.slice(question + 1);
    if (question !== -1) base = base.slice(0, question);
    const sample = (name: string): string => {
      const p = operation.parameters.find((q) => q.name === name && q.in !== 'path');
      return p === undefined ? 'sample' : this.parameterText(p);
    };
    const setQuery = (key: string, value: string | undefined): void => {
      const at = query.findIndex(([name]) => name === key);
      if (at === -1) query.push([key, value ?? sample(key)]);
      else if (value !== undefined) query[at] = [key, value];
    };
    for (const term of written.split('&').filter((t) => t !== '' && !t.startsWith('{'))) {
      const [key, value] = term.includes('=') ? [term.slice(0, term.indexOf('=')), term.slice(term.indexOf('=') + 1)] : [term, undefined];
      const templated = value?.match(/^\{([^}]+)\}$/);
      setQuery(key, templated ? (query.find(([name]) => name === templated[1])?.[1] ?? sample(templated[1]!)) : value);
    }
    for (const term of fragment.split('&').filter((t) => t !== '')) {
      const [key, value] = term.includes('=') ? [term.slice(0, term.indexOf('=')), term.slice(term.indexOf('=') + 1)] : [term, undefined];
      const declared = operation.parameters.find((p) => p.name.toLowerCase() === key.toLowerCase() && p.in !== 'path');
      if (declared?.in === 'header') headers[declared.name] = value ?? headers[declared.name] ?? sample(declared.name);
      else if (declared?.in === 'query') setQuery(declared.name, value);
    }
    return base;
  }

  /**
   * Why no invalid request of the operation can be built, or undefined: nothing else to break, and an unknown query key
   * is a property of a form-exploded free-form object parameter (D456 query objects and arrays of objects serialised), which accepts it.
   */
  unbreakable(operation: ProbedOperation): string | undefined {
    if (operation.body !== undefined && negativeOf(operation.body.schema, this.deref) !== undefined) return undefined;
    if (operation.parameters.some((p) => p.in === 'query' && invalidParameterValue(this.deref(p.schema), this.deref) !== undefined))
      return undefined;
    return operation.parameters.some((p) => this.takesAnyKey(p))
      ? 'an invalid request of an operation whose free-form query object takes any key (nothing to break)'
      : undefined;
  }

  /** A form-exploded query object that allows other members (API Gateway's `parameters`): every key the operation does not name is its. */
  private takesAnyKey(p: Parameter): boolean {
    const s = this.deref(p.schema);
    return (
      p.in === 'query' &&
      p.contentType === undefined &&
      (p.style ?? 'form') === 'form' &&
      (p.explode ?? true) &&
      isObj(s) &&
      s['additionalProperties'] !== undefined &&
      s['additionalProperties'] !== false
    );
  }

  /**
   * Makes the request invalid: its body, else a parameter its schema refuses, else an unknown query parameter; none
   * (undefined) when an exploded object parameter takes any key (see unbreakable).
   */
  private breakRequest(
    operation: ProbedOperation,
    query: [string, string][],
  ): { field: string; reason: string; body?: string } | undefined {
    if (operation.body !== undefined) {
      // an ndjson sequence declared as an array: one line its items refuse (D484, "JSON bodies by media type name,
      // ndjson line by line")
      const lines = NDJSON.test(operation.body.mediaType);
      const items = lines ? this.itemsOf(operation.body.schema) : undefined;
      const negative = negativeOf(items ?? operation.body.schema, this.deref);
      if (negative !== undefined)
        return {
          field: 'body',
          reason: `body: ${negative.reason}`,
          body: lines ? `${JSON.stringify(negative.value)}\n` : JSON.stringify(negative.value),
        };
    }
    // a JSON-encoded parameter is left whole: a wrong value would be wrong JSON, not the wrong type the probe reports
    const candidates = [...operation.parameters.filter((p) => p.in === 'query' && p.contentType === undefined)].sort(
      (a, b) => Number(b.required) - Number(a.required),
    );
    for (const p of candidates) {
      const bad = invalidParameterValue(this.deref(p.schema), this.deref);
      if (bad === undefined) continue;
      const existing = query.findIndex(([name]) => name === p.name);
      if (existing !== -1) query.splice(existing, 1);
      query.push([p.name, bad.value]);
      return { field: p.name, reason: `query ${p.name}: ${bad.reason}` };
    }
    if (operation.parameters.some((p) => this.takesAnyKey(p))) return undefined;
    query.push(['paygate_probe_unknown', '1']);
    return { field: 'paygate_probe_unknown', reason: 'an undeclared query parameter' };
  }

  /**
   * A body's text: JSON; for an ndjson media type one JSON text per line (D484, "JSON bodies by media type name,
   * ndjson line by line"), the items of a sample of an array schema each on its line, any other sample on one.
   */
  private bodyText(body: NonNullable<ProbedOperation['body']>, value: Json): string {
    if (!NDJSON.test(body.mediaType)) return JSON.stringify(value);
    const values = this.itemsOf(body.schema) !== undefined && Array.isArray(value) ? value : [value];
    return values.map((v) => `${JSON.stringify(v)}\n`).join('');
  }

  /** The `items` of an array schema, undefined for another schema. */
  private itemsOf(schema: Json | undefined): Json | undefined {
    const s = this.deref(schema);
    const types = isObj(s) ? (Array.isArray(s['type']) ? s['type'] : [s['type']]) : [];
    return isObj(s) && s['items'] !== undefined && (types.includes('array') || s['type'] === undefined) ? (s['items'] as Json) : undefined;
  }

  /** Sends one request and reads the answer. */
  async send(request: ProbeRequest): Promise<ProbeAnswer> {
    const response = await fetch(request.url, {
      method: request.method,
      headers: request.headers,
      ...(request.body === undefined ? {} : { body: request.body }),
      redirect: 'manual',
      signal: AbortSignal.timeout(15_000),
    });
    const text = await response.text();
    const contentType = (response.headers.get('content-type')?.split(';')[0] ?? '').trim().toLowerCase() || null;
    return {
      request,
      status: response.status,
      contentType,
      text,
      ...this.conformance(request.operation, response.status, contentType, text),
    };
  }
}

/** undici's codes for a request it refuses before anything reaches the server (the request's fault, not the answer's). */
const UNSENT_CODES: ReadonlySet<string> = new Set(['UND_ERR_REQ_CONTENT_LENGTH_MISMATCH', 'UND_ERR_INVALID_ARG', 'UND_ERR_NOT_SUPPORTED']);

/** The `cause` fetch wraps into its `fetch failed` (undici's error, or the socket's), when it has one. */
function causeOf(error: unknown): { code: string | undefined; message: string } | undefined {
  const cause = error instanceof Error ? error.cause : undefined;
  if (!(cause instanceof Error)) return undefined;
  const code = (cause as Error & { code?: unknown }).code;
  return { code: typeof code === 'string' ? code : undefined, message: cause.message };
}

/**
 * Why fetch failed, as the probe records it: fetch's own message and the cause it wraps (`fetch failed (ECONNRESET:
 * read ECONNRESET)`): `fetch failed` alone does not tell a scaffold that closed the connection from a request undici
 * would not send.
 */
export function fetchFailure(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const cause = causeOf(error);
  return cause === undefined ? message : `${message} (${cause.code === undefined ? '' : `${cause.code}: `}${cause.message})`;
}

/**
 * Why a request fetch failed was never sent, or undefined when it was (or may have been) sent: undici refused it
 * before writing it (a body of another length than its `Content-Length`, a header it will not set). Such a request
 * says nothing of the scaffold, so it is not counted as the scaffold's failure (D414, "The corpus probe's own HTTP
 * failures are not the scaffold's").
 */
export function unsentReason(error: unknown): string | undefined {
  // the Fetch standard's forbidden methods (CONNECT, TRACE, TRACK): fetch throws before any connection (httpbin's TRACE)
  const method = error instanceof TypeError ? /^'([A-Z]+)' HTTP method is unsupported/.exec(error.message)?.[1] : undefined;
  if (method !== undefined) return `a method fetch will not send (${method})`;
  const code = causeOf(error)?.code;
  return code !== undefined && UNSENT_CODES.has(code) ? `a request fetch would not send (${code})` : undefined;
}

/** A header's (simple style) or a path template's value: an array's items joined by commas, an object as JSON text (D456 query objects and arrays of objects serialised). */
function scalar(value: Json): string {
  return Array.isArray(value) ? value.map(paramText).join(',') : paramText(value);
}

/** A query value the parameter's schema refuses, as sent in a URL: a wrong type, a value outside an enum, too long. */
function invalidParameterValue(
  schema: Json | undefined,
  deref: (n: Json | undefined) => Json | undefined,
): { value: string; reason: string } | undefined {
  const s = deref(schema);
  if (!isObj(s)) return undefined;
  const types = Array.isArray(s['type']) ? s['type'] : [s['type']];
  if (types.includes('integer') || types.includes('number'))
    return { value: 'not-a-number', reason: `a string where ${String(types.filter(Boolean).join('|'))} is declared` };
  if (types.includes('boolean')) return { value: 'maybe', reason: 'neither true nor false' };
  if (Array.isArray(s['enum']) && s['enum'].length > 0 && !s['enum'].includes('not-a-declared-value'))
    return { value: 'not-a-declared-value', reason: 'a value outside the enum' };
  // a value past what a request line can carry is refused by any HTTP server before the API sees it (Node answers 431):
  // the probe breaks another parameter instead
  if (typeof s['maxLength'] === 'number' && s['maxLength'] < URL_VALUE_LIMIT)
    return { value: 'x'.repeat(s['maxLength'] + 1), reason: `longer than ${s['maxLength']}` };
  return undefined;
}

/**
 * The longest query value the probe sends: common servers and proxies take request lines of about 8 KB (Apache 8,190
 * bytes, nginx's default buffers 8 KB; Node 16 KB for the whole head), so a longer value tests the HTTP server, not the API.
 */
export const URL_VALUE_LIMIT = 4096;
