/**
 * Code samples for every operation of any spec (D385 "Samples from the spec, never by hand"): a curl command and a call of
 * the generated TypeScript client facade, emitted as `x-codeSamples` in the docs' copy of the document (Redoc shows
 * them with a Copy button) and on the pre-rendered operation pages.
 *
 * Values come from the spec: the request body's own example (media `example`, else the first of `examples`), else one
 * synthesised from its schema (required properties, the first enum value, a value of the declared format); path and
 * query values from the parameters' examples, else the same synthesis. Credentials and the server address are read from
 * environment variables named after the API (`PAYGATE_URL`, `PAYGATE_CLIENT_ID`), never written into a sample, so a
 * copied sample runs as it is against the reader's sandbox. test/docs/samples-compile.test.ts type-checks every
 * TypeScript sample of Paygate's spec against the generated client; test/docs/samples-run.test.ts runs some of them.
 *
 * Pure and deterministic (input order, stable JSON).
 */
import { RefResolver } from '../model/ref-resolver.js';
import type { ApiModel, OperationModel, SecuritySchemeModel } from '../model/types.js';
import { clientBaseName, clientMethodNames } from './client.js';
import { isObj } from '../util/json.js';

export interface CodeSample {
  /** Redoc's `x-codeSamples` language (its syntax highlighting). */
  lang: 'Shell' | 'TypeScript';
  /** The tab's label. */
  label: string;
  source: string;
}

type Obj = Record<string, unknown>;

/** What every sample of one API shares: its environment variable names, client factory and package. */
export interface SampleSettings {
  /** `PAYGATE`: environment variables are `PAYGATE_URL`, `PAYGATE_CLIENT_ID`, ... */
  envPrefix: string;
  /** `createPaygateClient`. */
  factory: string;
  /** The client's variable in the TypeScript sample (`paygate`). */
  variable: string;
  /**
   * Where the TypeScript sample imports the client from: `info.x-client-package` (the API's published client, e.g.
   * `@paygate/client`), else `./client/client.gen.js` (where `paygate generate --out DIR` writes it, relative to DIR).
   */
  clientModule: string;
  /** The server address used when the URL variable is unset (the spec's first absolute server, else a local one). */
  defaultUrl: string;
}

export const DEFAULT_CLIENT_MODULE = './client/client.gen.js';

/** `PaygateApi` -> `PAYGATE_API`. */
export function envPrefixOf(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .toUpperCase();
}

export function sampleSettings(model: Pick<ApiModel, 'title' | 'clientName' | 'servers' | 'extensions'>, info?: Obj): SampleSettings {
  const name = clientBaseName(model.title, model.clientName);
  const pkg = info?.['x-client-package'] ?? model.extensions['x-client-package'];
  const absolute = model.servers.find((s) => /^https?:\/\//.test(s.url) && !s.url.includes('{'));
  return {
    envPrefix: envPrefixOf(name) || 'API',
    factory: `create${name}Client`,
    variable: name.charAt(0).toLowerCase() + name.slice(1),
    clientModule: typeof pkg === 'string' && pkg.length > 0 ? pkg : DEFAULT_CLIENT_MODULE,
    defaultUrl: (absolute?.url ?? 'http://localhost:8080').replace(/\/+$/, ''),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Example values

const FORMAT_EXAMPLES: Record<string, string> = {
  'date-time': '2026-01-15T10:30:00Z',
  date: '2026-01-15',
  time: '10:30:00Z',
  email: 'user@example.com',
  uri: 'https://example.com/',
  url: 'https://example.com/',
  uuid: '3f1c2b8e-7d4a-4e59-9b1f-2a6c8d0e5f71',
  ipv4: '192.0.2.1',
  ipv6: '2001:db8::1',
  hostname: 'example.com',
  byte: 'aGVsbG8=',
  password: 'secret',
};

/** An example of `schema`: its own example, else one built from it (bounded depth; cycles end in `{}` / `[]`). */
export function exampleFor(resolver: RefResolver, schema: unknown, depth = 0): unknown {
  if (!isObj(schema)) return schema === false ? undefined : {};
  if (schema.example !== undefined) return schema.example;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  const s = resolver.deref<unknown>(schema);
  if (!isObj(s)) return {};
  if (s !== schema) return exampleFor(resolver, s, depth);
  if (s.const !== undefined) return s.const;
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum.find((v) => v !== null) ?? s.enum[0];
  if (s.default !== undefined) return s.default;
  if (depth > 8) return s.type === 'array' ? [] : {};
  for (const key of ['oneOf', 'anyOf'] as const) {
    const options = s[key];
    if (Array.isArray(options) && options.length > 0) {
      const first = options.find((o) => !(isObj(o) && o.type === 'null')) ?? options[0];
      return exampleFor(resolver, first, depth + 1);
    }
  }
  const types = Array.isArray(s.type) ? s.type.filter((t) => t !== 'null') : [s.type];
  const type = types[0] ?? (isObj(s.properties) || Array.isArray(s.allOf) ? 'object' : undefined);
  switch (type) {
    case 'object': {
      const { properties, required } = resolver.objectShape(s);
      const out: Obj = {};
      for (const [name, prop] of Object.entries(properties)) {
        if (required.has(name)) out[name] = exampleFor(resolver, prop, depth + 1);
      }
      return out;
    }
    case 'array':
      return typeof s.minItems === 'number' && s.minItems === 0 && s.items === undefined
        ? []
        : [exampleFor(resolver, s.items ?? {}, depth + 1)];
    case 'integer':
    case 'number':
      return typeof s.minimum === 'number' ? s.minimum : typeof s.exclusiveMinimum === 'number' ? s.exclusiveMinimum + 1 : 1;
    case 'boolean':
      return true;
    case 'string': {
      const byFormat = typeof s.format === 'string' ? FORMAT_EXAMPLES[s.format] : undefined;
      if (byFormat !== undefined) return byFormat;
      const min = typeof s.minLength === 'number' ? s.minLength : 0;
      return 'string'.padEnd(min, 'x');
    }
    default:
      return {};
  }
}

/**
 * The example trimmed to what its schema declares: properties the schema does not name are dropped (recursively) when
 * it allows no others. Real specs' examples carry fields their schemas lost (PayPal's Orders API does), and a typed
 * client rightly refuses an object literal with unknown properties, so a sample keeps only the declared ones.
 */
export function fitToSchema(resolver: RefResolver, schema: unknown, value: unknown, depth = 0): unknown {
  const s = resolver.deref<unknown>(schema);
  if (!isObj(s) || depth > 20) return value;
  if (Array.isArray(value)) return s.items === undefined ? value : value.map((v) => fitToSchema(resolver, s.items, v, depth + 1));
  if (!isObj(value)) return value;
  if (s.oneOf !== undefined || s.anyOf !== undefined) return value; // which branch applies is the example's to say
  const { properties } = resolver.objectShape(s);
  const names = Object.keys(properties);
  const open = (s.additionalProperties !== undefined && s.additionalProperties !== false) || s.patternProperties !== undefined;
  if (names.length === 0) return value;
  const out: Obj = {};
  for (const [key, v] of Object.entries(value)) {
    if (properties[key] !== undefined) out[key] = fitToSchema(resolver, properties[key], v, depth + 1);
    else if (open) out[key] = v;
  }
  return out;
}

/** The example of a parameter, request body or media type object: its own `example`, else the first of `examples`. */
function ownExample(resolver: RefResolver, node: Obj): unknown {
  if (node.example !== undefined) return node.example;
  if (isObj(node.examples)) {
    const first = Object.values(node.examples)[0];
    const example = resolver.deref<unknown>(first);
    if (isObj(example) && example.value !== undefined) return example.value;
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------------------------
// Samples

interface RawParameter {
  name: string;
  in: string;
  required: boolean;
  value: unknown;
}

/** The operation's parameters as written (operation's own, then the path item's it does not override), with a value each. */
function rawParameters(resolver: RefResolver, pathItem: Obj, operation: Obj): RawParameter[] {
  const own = (Array.isArray(operation.parameters) ? operation.parameters : []).map((p) => resolver.deref<Obj>(p));
  const shared = (Array.isArray(pathItem.parameters) ? pathItem.parameters : []).map((p) => resolver.deref<Obj>(p));
  const seen = new Set(own.map((p) => `${String(p.in)} ${String(p.name)}`));
  return [...own, ...shared.filter((p) => !seen.has(`${String(p.in)} ${String(p.name)}`))]
    .filter((p) => isObj(p) && typeof p.name === 'string' && typeof p.in === 'string')
    .map((p) => {
      const example = ownExample(resolver, p);
      const content = isObj(p.content) ? Object.values(p.content)[0] : undefined;
      const schema = p.schema ?? (isObj(content) ? content.schema : undefined);
      return {
        name: p.name as string,
        in: p.in as string,
        required: p.required === true || p.in === 'path',
        value: example !== undefined ? example : exampleFor(resolver, schema ?? { type: 'string' }),
      };
    });
}

/** The request body's media type the client sends (JSON first, as the client emitter picks) and its example. */
function requestBodyOf(resolver: RefResolver, operation: Obj): { mediaType: string; value: unknown; required: boolean } | undefined {
  const body = resolver.deref<unknown>(operation.requestBody);
  if (!isObj(body) || !isObj(body.content)) return undefined;
  const types = Object.keys(body.content);
  const mediaType = types.find((t) => /json/.test(t)) ?? types[0];
  if (mediaType === undefined) return undefined;
  const media = resolver.deref<Obj>(body.content[mediaType]);
  const example = isObj(media) ? ownExample(resolver, media) : undefined;
  return {
    mediaType,
    value:
      example !== undefined && isObj(media)
        ? fitToSchema(resolver, media.schema, example)
        : exampleFor(resolver, isObj(media) ? media.schema : {}),
    required: body.required === true,
  };
}

/** `clientId` -> `CLIENT_ID`, `ClientSecret` -> `CLIENT_SECRET`. */
const envName = (settings: SampleSettings, name: string) => `${settings.envPrefix}_${envPrefixOf(name)}`;

/** The environment variable holding a scheme's credential (named by its client option when the spec gives one). */
export function credentialVariable(settings: SampleSettings, scheme: SecuritySchemeModel): string {
  if (scheme.type === 'http' && scheme.scheme?.toLowerCase() === 'basic') return envName(settings, 'username');
  return envName(settings, scheme.clientOption ?? scheme.name);
}

const shellQuote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;
const scalarText = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

function queryString(params: readonly RawParameter[]): string {
  const parts = params.map((p) => {
    const values = Array.isArray(p.value) ? p.value : [p.value];
    return values.map((v) => `${encodeURIComponent(p.name)}=${encodeURIComponent(scalarText(v))}`).join('&');
  });
  return parts.length === 0 ? '' : `?${parts.join('&')}`;
}

function fillPath(path: string, params: readonly RawParameter[]): string {
  return path.replace(/\{([^}]+)\}/g, (whole, name: string) => {
    const p = params.find((q) => q.in === 'path' && q.name === name);
    return p === undefined ? whole : encodeURIComponent(scalarText(p.value));
  });
}

/** The schemes of the operation's first security alternative (what the samples authenticate with). */
function schemesOf(model: Pick<ApiModel, 'securitySchemes'>, op: OperationModel): SecuritySchemeModel[] {
  const first = op.security[0] ?? [];
  return first.flatMap((r) => model.securitySchemes.filter((s) => s.name === r.scheme));
}

export function curlSample(
  settings: SampleSettings,
  model: Pick<ApiModel, 'securitySchemes'>,
  op: OperationModel,
  raw: RawOperation,
): string {
  const query = raw.parameters.filter((p) => p.in === 'query' && p.required);
  const lines: string[] = [];
  const authQuery: RawParameter[] = [];
  const headerLines: string[] = [];
  for (const scheme of schemesOf(model, op)) {
    const variable = `$${credentialVariable(settings, scheme)}`;
    if (scheme.type === 'apiKey' && scheme.in === 'header') headerLines.push(`-H "${scheme.parameterName}: ${variable}"`);
    else if (scheme.type === 'apiKey' && scheme.in === 'query')
      authQuery.push({ name: scheme.parameterName ?? scheme.name, in: 'query', required: true, value: variable });
    else if (scheme.type === 'apiKey' && scheme.in === 'cookie') headerLines.push(`-b "${scheme.parameterName}=${variable}"`);
    else if (scheme.type === 'http' && scheme.scheme?.toLowerCase() === 'basic')
      headerLines.push(`-u "${variable}:$${envName(settings, 'password')}"`);
    else if (scheme.type !== 'mutualTLS') headerLines.push(`-H "Authorization: Bearer ${variable}"`);
  }
  for (const p of raw.parameters.filter((q) => q.in === 'header')) {
    // a declared Idempotency-Key is always sent, fresh on each run (a copied sample run twice must not replay or
    // conflict); the typed client makes its own
    if (p.name.toLowerCase() === 'idempotency-key') {
      const uuid = op.parameters.header.some((h) => h.name === p.name && isObj(h.schema) && h.schema.format === 'uuid');
      headerLines.push(`-H "${p.name}: ${uuid ? '$(uuidgen)' : '$(date +%s)-$RANDOM'}"`);
    } else if (p.required) headerLines.push(`-H ${shellQuote(`${p.name}: ${scalarText(p.value)}`)}`);
  }
  const qs = queryString(query);
  // credentials in the query stay shell variables (expanded inside double quotes), never URL-encoded text
  const authQs = authQuery.map((p) => `${encodeURIComponent(p.name)}=${String(p.value)}`).join('&');
  const url = `$${settings.envPrefix}_URL${fillPath(op.path, raw.parameters)}${qs}${authQs === '' ? '' : `${qs === '' ? '?' : '&'}${authQs}`}`;
  const method = op.method.toUpperCase();
  lines.push(`curl -X ${method} "${url}"`);
  lines.push(...headerLines);
  const body = raw.body;
  if (body !== undefined) {
    if (body.mediaType.startsWith('multipart/')) {
      const fields = isObj(body.value) ? Object.entries(body.value) : [];
      for (const [name, value] of fields) {
        const file = op.requestBody?.content.find((c) => c.mediaType === body.mediaType)?.fields?.find((f) => f.name === name);
        if (file?.kind === 'file' || file?.kind === 'files') lines.push(`-F ${shellQuote(`${name}=@document.pdf`)}`);
        else lines.push(`-F ${shellQuote(`${name}=${scalarText(value)}`)}`);
      }
    } else if (body.mediaType === 'application/x-www-form-urlencoded') {
      const fields = isObj(body.value) ? Object.entries(body.value) : [];
      for (const [name, value] of fields) lines.push(`--data-urlencode ${shellQuote(`${name}=${scalarText(value)}`)}`);
    } else {
      lines.push(`-H "Content-Type: ${body.mediaType}"`);
      lines.push(`-d ${shellQuote(typeof body.value === 'string' ? body.value : JSON.stringify(body.value, null, 2))}`);
    }
  }
  return `${lines.join(' \\\n  ')}\n`;
}

/** A TypeScript value literal (JSON, with identifier-safe keys unquoted for readability). */
function tsLiteral(value: unknown, indent: string): string {
  const json = JSON.stringify(value, null, 2) ?? 'undefined';
  return json.replace(/^( *)"([A-Za-z_$][A-Za-z0-9_$]*)":/gm, '$1$2:').replace(/\n/g, `\n${indent}`);
}

export function typescriptSample(
  settings: SampleSettings,
  model: Pick<ApiModel, 'securitySchemes'>,
  op: OperationModel,
  raw: RawOperation,
  name: { group: string; method: string },
): string {
  const v = settings.variable;
  const options = [`baseUrl: process.env.${settings.envPrefix}_URL ?? ${JSON.stringify(settings.defaultUrl)}`];
  const auth: string[] = [];
  for (const scheme of schemesOf(model, op)) {
    const variable = `process.env.${credentialVariable(settings, scheme)} ?? ""`;
    if (scheme.type === 'mutualTLS') continue;
    if (scheme.type === 'http' && scheme.scheme?.toLowerCase() === 'basic') {
      auth.push(`${JSON.stringify(scheme.name)}: { username: ${variable}, password: process.env.${envName(settings, 'password')} ?? "" }`);
    } else if (scheme.clientOption !== undefined) options.push(`${scheme.clientOption}: ${variable}`);
    else auth.push(`${JSON.stringify(scheme.name)}: ${variable}`);
  }
  if (auth.length > 0) options.push(`auth: { ${auth.join(', ')} }`);
  const args: string[] = op.parameters.path.map((p) => {
    const value = raw.parameters.find((q) => q.in === 'path' && q.name === p.name)?.value;
    return tsLiteral(value ?? p.name, '');
  });
  const media = op.requestBody === undefined ? undefined : raw.body;
  const hasQuery = op.parameters.query.length > 0;
  const requiredQuery = raw.parameters.filter((p) => p.in === 'query' && p.required);
  const hiddenHeaders = new Set(['idempotency-key', 'content-type', 'accept']);
  const headers = raw.parameters.filter((p) => p.in === 'header' && p.required && !hiddenHeaders.has(p.name.toLowerCase()));
  const trailing: string[] = [];
  if (media !== undefined) {
    if (media.mediaType.startsWith('multipart/')) {
      const fields = op.requestBody?.content.find((c) => c.mediaType === media.mediaType)?.fields ?? [];
      const entries = fields
        .filter((f) => f.required)
        .map((f) => {
          const value = isObj(media.value) ? media.value[f.name] : undefined;
          if (f.kind === 'file')
            return `${JSON.stringify(f.name)}: new Blob([await readFile('document.pdf')], { type: 'application/pdf' })`;
          if (f.kind === 'files')
            return `${JSON.stringify(f.name)}: [new Blob([await readFile('document.pdf')], { type: 'application/pdf' })]`;
          if (f.kind === 'strings')
            return `${JSON.stringify(f.name)}: ${JSON.stringify(Array.isArray(value) ? value.map(scalarText) : [scalarText(value ?? 'string')])}`;
          return `${JSON.stringify(f.name)}: ${JSON.stringify(scalarText(value ?? 'string'))}`;
        });
      trailing.push(`{ ${entries.join(', ')} }`);
    } else {
      trailing.push(tsLiteral(media.value, ''));
    }
  }
  if (hasQuery) {
    const query = Object.fromEntries(requiredQuery.map((p) => [p.name, p.value]));
    trailing.push(requiredQuery.length > 0 ? tsLiteral(query, '') : '');
  }
  if (headers.length > 0) {
    trailing.push(`{ headers: ${tsLiteral(Object.fromEntries(headers.map((h) => [h.name, scalarText(h.value)])), '')} }`);
  }
  // an argument left out is `undefined` only when a later one is given
  while (trailing.length > 0 && trailing[trailing.length - 1] === '') trailing.pop();
  const callArgs = [...args, ...trailing.map((a) => (a === '' ? 'undefined' : a))].join(', ');
  const usesFile = /readFile\(/.test(callArgs);
  return [
    ...(usesFile ? [`import { readFile } from 'node:fs/promises';`] : []),
    `import { ${settings.factory} } from ${JSON.stringify(settings.clientModule)};`,
    '',
    `const ${v} = ${settings.factory}({`,
    ...options.map((o) => `  ${o},`),
    '});',
    '',
    `const result = await ${v}.${name.group}.${name.method}(${callArgs});`,
    'if (result.ok) console.log(result.status, result.data);',
    'else console.error(result.status, result.error);',
    '',
  ].join('\n');
}

interface RawOperation {
  parameters: RawParameter[];
  body: { mediaType: string; value: unknown; required: boolean } | undefined;
}

function rawOperation(resolver: RefResolver, document: Obj, op: OperationModel): RawOperation {
  const paths = isObj(document.paths) ? document.paths : {};
  const pathItem = resolver.deref<unknown>(paths[op.path]);
  const operation = isObj(pathItem) ? pathItem[op.method] : undefined;
  if (!isObj(pathItem) || !isObj(operation)) return { parameters: [], body: undefined };
  return { parameters: rawParameters(resolver, pathItem, operation), body: requestBodyOf(resolver, operation) };
}

export interface OperationSamples {
  operationId: string;
  method: string;
  path: string;
  samples: CodeSample[];
  /** The values the samples send (the try-it form starts from them). */
  values?: { parameters: { name: string; in: string; value: unknown }[]; body: unknown } | undefined;
}

/** curl and TypeScript samples of every operation of the model, in model order. */
export function operationSamples(model: ApiModel, document: Readonly<Obj>): OperationSamples[] {
  const resolver = new RefResolver(document as Obj);
  const info = isObj(document.info) ? document.info : undefined;
  const settings = sampleSettings(model, info);
  const names = clientMethodNames(model.operations);
  return model.operations.map((op) => {
    const raw = rawOperation(resolver, document as Obj, op);
    const name = names.get(op.operationId) ?? { group: 'default', method: op.operationId };
    return {
      operationId: op.operationId,
      method: op.method,
      path: op.path,
      values: { parameters: raw.parameters.map((p) => ({ name: p.name, in: p.in, value: p.value })), body: raw.body?.value },
      samples: [
        { lang: 'Shell', label: 'curl', source: curlSample(settings, model, op, raw) },
        {
          lang: 'TypeScript',
          label: settings.clientModule === DEFAULT_CLIENT_MODULE ? 'TypeScript' : settings.clientModule,
          source: typescriptSample(settings, model, op, raw, name),
        },
      ],
    };
  });
}

/**
 * The document with `x-codeSamples` on every operation: the spec's own samples first (kept as written), then ours.
 * A copy: the input is not mutated.
 */
export function withCodeSamples(document: object, samples: readonly OperationSamples[]): object {
  const paths = (document as { paths?: unknown }).paths;
  if (!isObj(paths)) return document;
  const out: Obj = {};
  for (const [path, item] of Object.entries(paths)) {
    if (!isObj(item)) {
      out[path] = item;
      continue;
    }
    const copy: Obj = { ...item };
    for (const s of samples.filter((x) => x.path === path)) {
      const operation = copy[s.method];
      if (!isObj(operation)) continue;
      const own = Array.isArray(operation['x-codeSamples']) ? operation['x-codeSamples'] : [];
      copy[s.method] = { ...operation, 'x-codeSamples': [...own, ...s.samples] };
    }
    out[path] = copy;
  }
  return { ...document, paths: out };
}
