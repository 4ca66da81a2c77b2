import type { ApiModel, MediaTypeModel, OperationModel, PageTotalModel, PageValueSource, PaginationModel } from '../model/types.js';
import { apiName, camelCase, methodNameForTag, propertyKey, safeIdentifier } from '../util/naming.js';
import { compareStrings } from '../util/sorted.js';
import { contractSpecifier, runtimeSpecifier, type EmitContext, type Emitter } from './context.js';
import { BODY_TYPE, bodyRef, briefDescription, operationAliases, operationTypeRef, usesAlias } from './names.js';
import { unescapePointerToken } from '../util/json.js';
import type { RefResolver } from '../model/ref-resolver.js';
import { clientQueryStyles, modelSchemaResolver } from './request-validators.js';

export interface ClientArgView {
  name: string;
  optional: boolean;
  type: string;
}

export interface ClientMethodView {
  group: string;
  name: string;
  key: string;
  local: string;
  alias: string;
  /** `paths["/x"]["get"]` */
  ref: string;
  doc: string[];
  args: ClientArgView[];
  /** `GET` */
  httpMethod: string;
  path: string;
  /** Object literal fragments passed to openapi-fetch. */
  /** Arguments of the generated `init(...)` call. */
  initArgs: string;
  /** Arguments of the runtime's `operation(send, ...)` building this method (D195 client type is a declared interface). */
  operationArgs: string;
  dataType: string;
  /** Union of the declared error bodies (D122 client errors typed from declared statuses). */
  errorType: string;
  /** The same bodies named by component where the spec `$ref`s one (`components["schemas"]["Error"]`), for `Result`'s default. */
  errorParts: string[];
  /** Name of the deduplicated OperationMeta constant. */
  meta: string;
  /** The operation's page helper (`<method>All`), when the model recognises its page shape (D225 pagination model by strategy; D227 page strategies as data in the client). */
  listAll: {
    local: string;
    key: string;
    /** Position of the query among the method's arguments (the call options follow it). */
    queryAt: number;
    /** Name of the deduplicated PageStrategy constant. */
    strategy: string;
    itemType: string;
    doc: string[];
  } | null;
}

export interface ClientGroupView {
  key: string;
  doc: string[];
  /** `params`/`returns`: the method's type in the `XClient` interface; `impl`: its value in the returned object (D195 client type is a declared interface). */
  methods: { key: string; local: string; doc: string[]; params: string; returns: string; impl: string }[];
}

/**
 * Facade name: `info.x-client-name` when set, else the name the title gives (D202, apiNameFromTitle:
 * `The Racing API` -> `Racing`, `GitHub v3 REST API` -> `GitHub`).
 */
export function clientBaseName(title: string, override?: unknown): string {
  return apiName(title, override);
}

function pickMedia(content: readonly MediaTypeModel[]): MediaTypeModel | undefined {
  return content.find((c) => /json/.test(c.mediaType)) ?? content[0];
}

/**
 * How openapi-fetch must read the success body: JSON by default (null), `text` for text-like media (HTML pages,
 * scripts, CSV), `blob` for anything binary. Parsing an HTML page as JSON would make the call throw.
 */
export function successParseAs(op: OperationModel): 'text' | 'blob' | null {
  const media = op.responses
    .filter((r) => (r.kind === 'exact' && r.status.startsWith('2')) || r.status === '2XX')
    .map((r) => pickMedia(r.content)?.mediaType)
    .filter((m): m is string => m !== undefined);
  if (media.length === 0 || media.some((m) => /json/.test(m))) return null;
  return media.every((m) => /^text\/|javascript|xml/.test(m)) ? 'text' : 'blob';
}

/** `alias["responses"][404]` / `["4XX"]` / `["default"]` */
function responseKey(status: string): string {
  return /^\d{3}$/.test(status) ? status : JSON.stringify(status);
}

const isSuccess = (status: string): boolean => status.startsWith('2');

/** The declared non-2xx bodies: `...["responses"][404]["content"]["application/json"] | ...` (undefined when bodiless). */
export function errorBodyType(op: OperationModel, alias: string): string {
  const types: string[] = [];
  for (const r of op.responses) {
    if (isSuccess(r.status)) continue;
    const media = pickMedia(r.content);
    types.push(media === undefined ? 'undefined' : bodyRef(alias, responseKey(r.status), media.mediaType));
  }
  return types.length === 0 ? 'never' : [...new Set(types)].join(' | ');
}

const COMPONENT_SCHEMA_REF = /^#\/components\/schemas\/([^/]+)$/;

/** Each declared error body as a type: the component it `$ref`s when it is one, else the operation's own expression. */
export function errorBodyParts(op: OperationModel, alias: string): string[] {
  const parts: string[] = [];
  for (const r of op.responses) {
    if (isSuccess(r.status)) continue;
    const media = pickMedia(r.content);
    const ref = (media?.schema as { $ref?: unknown } | undefined)?.$ref;
    const component = typeof ref === 'string' ? COMPONENT_SCHEMA_REF.exec(ref)?.[1] : undefined;
    if (component !== undefined) parts.push(`components["schemas"][${JSON.stringify(unescapePointerToken(component))}]`);
    else parts.push(media === undefined ? 'undefined' : bodyRef(alias, responseKey(r.status), media.mediaType));
  }
  return [...new Set(parts)];
}

/** The operation's run-time description (OperationMeta) as a TypeScript literal. */
export function operationMetaLiteral(op: OperationModel, resolver?: RefResolver): string {
  const security = JSON.stringify(op.security.map((alt) => alt.map((r) => r.scheme)));
  const errors = op.responses
    .filter((r) => !isSuccess(r.status))
    .map((r) => `${JSON.stringify(r.status)}: ${pickMedia(r.content) !== undefined && /json/.test(pickMedia(r.content)!.mediaType)}`);
  const parts = [`security: ${security}`, `errors: { ${errors.join(', ')} }`];
  const key = op.parameters.header.find((p) => p.name.toLowerCase() === 'idempotency-key');
  if (key !== undefined) {
    const schema = (key.schema ?? {}) as { pattern?: unknown; minLength?: unknown; maxLength?: unknown };
    const rules = [`name: ${JSON.stringify(key.name)}`];
    if (typeof schema.pattern === 'string') rules.push(`pattern: ${JSON.stringify(schema.pattern)}`);
    if (typeof schema.minLength === 'number') rules.push(`minLength: ${schema.minLength}`);
    if (typeof schema.maxLength === 'number') rules.push(`maxLength: ${schema.maxLength}`);
    parts.push(`idempotencyKey: { ${rules.join(', ')} }`);
  }
  const query = resolver === undefined ? undefined : clientQueryStyles(resolver, op);
  if (query !== undefined) parts.push(`query: ${JSON.stringify(query)}`);
  const path = clientPathStyles(op);
  if (path !== undefined) parts.push(`path: ${JSON.stringify(path)}`);
  return `{ ${parts.join(', ')} }`;
}

/**
 * The path parameters whose declared style is not simple and unexploded (D413, "Object path parameters read by their
 * style"), for the client runtime to mark in the template (packages/client/src/runtime/path-styles.ts); undefined when
 * every one is simple, as Paygate's own are.
 */
export function clientPathStyles(
  op: Pick<OperationModel, 'parameterList'>,
): Record<string, { style?: 'label' | 'matrix'; explode?: true }> | undefined {
  const out: Record<string, { style?: 'label' | 'matrix'; explode?: true }> = {};
  for (const p of op.parameterList) {
    if (p.in !== 'path') continue;
    const style = p.style === 'label' || p.style === 'matrix' ? p.style : undefined;
    if (style === undefined && !p.explode) continue;
    out[p.name] = { ...(style === undefined ? {} : { style }), ...(p.explode ? { explode: true as const } : {}) };
  }
  return Object.keys(out).length === 0 ? undefined : out;
}

function successDataType(op: OperationModel, alias: string): string {
  const types: string[] = [];
  for (const r of op.responses) {
    if (!(r.kind === 'exact' && r.status.startsWith('2')) && r.status !== '2XX') continue;
    const media = pickMedia(r.content);
    const key = /^\d{3}$/.test(r.status) ? r.status : JSON.stringify(r.status);
    types.push(media === undefined ? 'undefined' : bodyRef(alias, key, media.mediaType));
  }
  return types.length === 0 ? 'undefined' : [...new Set(types)].join(' | ');
}

/** Arguments of the generated `init(path, query, opts, body, bodySerializer, parseAs)`, without trailing undefineds. */
function initArguments(
  path: string | undefined,
  query: string | undefined,
  body: string | undefined,
  serializer: string | undefined,
  parseAs: string | null,
): string {
  const args = [
    path ?? 'undefined',
    query ?? 'undefined',
    'opts',
    body ?? 'undefined',
    serializer ?? 'undefined',
    parseAs === null ? 'undefined' : JSON.stringify(parseAs),
  ];
  while (args[args.length - 1] === 'undefined') args.pop();
  return args.join(', ');
}

/**
 * Arguments after `send` of the runtime's `operation(...)` (D195 client type is a declared interface): meta, method, path, the path parameters' names in
 * argument order, whether a body and a query argument follow them, then the body serializer and `parseAs`, without
 * trailing undefineds.
 */
function operationArguments(
  meta: string,
  method: string,
  path: string,
  pathNames: readonly string[],
  hasBody: boolean,
  hasQuery: boolean,
  serializer: string | undefined,
  parseAs: string | null,
): string {
  const args = [meta, JSON.stringify(method), path, `[${pathNames.join(', ')}]`, String(hasBody), String(hasQuery)];
  const tail = [serializer ?? 'undefined', parseAs === null ? 'undefined' : JSON.stringify(parseAs)];
  while (tail[tail.length - 1] === 'undefined') tail.pop();
  return [...args, ...tail].join(', ');
}

/** What each strategy's helper does, for its JSDoc. */
const PAGE_STRATEGY_DOC: Record<PaginationModel['strategy'], string> = {
  cursor: "each page's cursor sent back for the next",
  lastItem: "the last item's id sent back for the next page",
  nextLink: "each page's next link followed",
  offset: 'the offset moved by the items received',
  page: 'page numbers counted up',
};

function pageValueLiteral(v: PageValueSource): string {
  return v.in === 'header' ? `{ in: "header", name: ${JSON.stringify(v.name)} }` : `{ in: "body", path: ${JSON.stringify(v.path)} }`;
}

/** The operation's page strategy as the runtime's `PageStrategy` literal (D227 page strategies as data in the client). */
export function pageStrategyLiteral(p: PaginationModel): string {
  const parts = [`strategy: ${JSON.stringify(p.strategy)}`, `items: ${JSON.stringify(p.itemsPath)}`];
  const add = (key: string, value: string | undefined): void => {
    if (value !== undefined) parts.push(`${key}: ${value}`);
  };
  const total = (t: PageTotalModel | undefined): string | undefined =>
    t === undefined ? undefined : `{ value: ${pageValueLiteral(t.source)}, counts: ${JSON.stringify(t.counts)} }`;
  const json = (v: unknown): string | undefined => (v === undefined ? undefined : JSON.stringify(v));
  switch (p.strategy) {
    case 'cursor':
      add('cursorParam', json(p.cursorParam));
      add('next', pageValueLiteral(p.next));
      add('hasMore', json(p.hasMorePath));
      break;
    case 'lastItem':
      add('cursorParam', json(p.cursorParam));
      add('idField', json(p.idField));
      add('hasMore', json(p.hasMorePath));
      break;
    case 'nextLink':
      add('next', pageValueLiteral(p.next));
      add('tokenParam', json(p.tokenParam));
      break;
    case 'offset':
      add('offsetParam', json(p.offsetParam));
      add('limitParam', json(p.limitParam));
      add('total', total(p.total));
      break;
    case 'page':
      add('pageParam', json(p.pageParam));
      add('pageSizeParam', json(p.pageSizeParam));
      add('firstPage', String(p.firstPage));
      add('total', total(p.total));
      break;
  }
  return `{ ${parts.join(', ')} }`;
}

/**
 * The type of one item of the operation's page: the items array of the page status's body, every step made
 * `NonNullable` (an optional wrapper such as `meta` still indexes), then `[number]` (D227 page strategies as data in the client). From the spec's schema.
 */
export function pageItemType(op: OperationModel, alias: string, p: PaginationModel): string {
  const response = op.responses.find((r) => r.status === p.status);
  const media = response === undefined ? undefined : pickMedia(response.content);
  let type = `NonNullable<${bodyRef(alias, responseKey(p.status), media?.mediaType ?? 'application/json')}>`;
  for (const key of p.itemsPath) type = `NonNullable<${type}[${JSON.stringify(key)}]>`;
  return `${type}[number]`;
}

/** Group (first tag, camelCased) and method name for every operation; collisions fall back to the full operationId. */
export function clientMethodNames(operations: readonly OperationModel[]): Map<string, { group: string; method: string }> {
  const proposed = operations.map((op) => ({
    op,
    group: camelCase(op.tags[0] ?? 'default') || 'default',
    method: methodNameForTag(op.operationId, op.tags[0]),
  }));
  const counts = new Map<string, number>();
  for (const p of proposed) counts.set(`${p.group}.${p.method}`, (counts.get(`${p.group}.${p.method}`) ?? 0) + 1);
  const used = new Set<string>();
  const out = new Map<string, { group: string; method: string }>();
  for (const p of proposed) {
    let method = counts.get(`${p.group}.${p.method}`)! > 1 ? camelCase(p.op.operationId) || 'call' : p.method;
    const base = method;
    for (let n = 2; used.has(`${p.group}.${method}`) || used.has(`${p.group}.${method}All`); n++) method = `${base}${n}`;
    used.add(`${p.group}.${method}`);
    // the page helper's name is taken too: a later operation called `listAll` must not meet `list`'s helper (found
    // by the corpus on dev.to and Azure's subAssessments: TS1117 duplicate property)
    if (p.op.pagination !== undefined) used.add(`${p.group}.${method}All`);
    out.set(p.op.operationId, { group: p.group, method });
  }
  return out;
}

export function clientViews(model: ApiModel): {
  methods: ClientMethodView[];
  groups: ClientGroupView[];
  metas: { name: string; literal: string }[];
  strategies: { name: string; literal: string }[];
} {
  const aliasOf = operationAliases(model.operations);
  const names = clientMethodNames(model.operations);
  const resolver = modelSchemaResolver(model);
  const methods: ClientMethodView[] = [];
  const metas = new Map<string, string>();
  const strategies = new Map<string, string>();
  const strategyName = (literal: string): string => {
    if (!strategies.has(literal)) strategies.set(literal, `PAGES_${strategies.size}`);
    return strategies.get(literal)!;
  };
  for (const op of model.operations) {
    const { group, method } = names.get(op.operationId)!;
    const alias = aliasOf.get(op.operationId)!;
    const used = new Set<string>(['opts', 'query', 'body']);
    const args: ClientArgView[] = [];
    const pathEntries: string[] = [];
    for (const p of op.parameters.path) {
      let name = safeIdentifier(p.name);
      for (let n = 2; used.has(name); n++) name = `${safeIdentifier(p.name)}${n}`;
      used.add(name);
      args.push({ name, optional: false, type: p.declared ? `${alias}["parameters"]["path"][${JSON.stringify(p.name)}]` : 'string' });
      pathEntries.push(`${propertyKey(p.name)}: ${name}`);
    }
    const media = op.requestBody === undefined ? undefined : pickMedia(op.requestBody.content);
    let bodySerializer: string | null = null;
    if (media !== undefined && op.requestBody !== undefined) {
      let type = `NonNullable<${alias}["requestBody"]>["content"][${JSON.stringify(media.mediaType)}]`;
      if (media.mediaType.startsWith('multipart/')) {
        bodySerializer = 'toFormData';
        if (media.fields !== undefined) {
          const kinds = { file: 'Blob', files: 'Blob[]', string: 'string', strings: 'string[]' } as const;
          type = `{ ${media.fields.map((f) => `${propertyKey(f.name)}${f.required ? '' : '?'}: ${kinds[f.kind]}`).join('; ')} }`;
        }
      } else if (media.mediaType === 'application/x-www-form-urlencoded') {
        bodySerializer = 'toUrlEncoded';
      }
      args.push({ name: 'body', optional: !op.requestBody.required, type });
    }
    const hasQuery = op.parameters.query.length > 0;
    const queryType = `NonNullable<${alias}["parameters"]["query"]>`;
    if (hasQuery) args.push({ name: 'query', optional: !op.parameters.query.some((p) => p.required), type: queryType });
    const headerType =
      op.parameters.header.length > 0 ? `CallOptions<Partial<NonNullable<${alias}["parameters"]["header"]>>>` : 'CallOptions';
    args.push({ name: 'opts', optional: true, type: headerType });
    // A required argument may not follow an optional one: make earlier optional ones `T | undefined`.
    let seenRequired = false;
    for (let i = args.length - 1; i >= 0; i--) {
      const arg = args[i]!;
      if (!arg.optional) seenRequired = true;
      else if (seenRequired) {
        arg.optional = false;
        arg.type = `${arg.type} | undefined`;
      }
    }
    const local = `${group}$${method}`;
    const summaryDoc = [
      op.summary ?? '',
      briefDescription(op.description),
      `\`${op.method.toUpperCase()} ${op.path}\` (operationId \`${op.operationId}\`)${op.deprecated ? '\n@deprecated' : ''}`,
    ];
    const pg = op.pagination;
    // the page helper sends its query to the operation's own method: only where the method takes one (D227 page strategies as data in the client)
    const canListAll = pg !== undefined && hasQuery;
    const dataType = successDataType(op, alias);
    const metaLiteral = operationMetaLiteral(op, resolver);
    if (!metas.has(metaLiteral)) metas.set(metaLiteral, `META_${metas.size}`);
    methods.push({
      group,
      name: method,
      key: propertyKey(method),
      local,
      alias,
      ref: operationTypeRef(op),
      doc: summaryDoc,
      args,
      httpMethod: op.method.toUpperCase(),
      path: JSON.stringify(op.path),
      initArgs: initArguments(
        pathEntries.length > 0 ? `{ ${pathEntries.join(', ')} }` : undefined,
        hasQuery ? 'query' : undefined,
        media !== undefined ? 'body' : undefined,
        bodySerializer ?? undefined,
        successParseAs(op),
      ),
      operationArgs: operationArguments(
        metas.get(metaLiteral)!,
        op.method.toUpperCase(),
        JSON.stringify(op.path),
        op.parameters.path.map((p) => JSON.stringify(p.name)),
        media !== undefined,
        hasQuery,
        bodySerializer ?? undefined,
        successParseAs(op),
      ),
      dataType,
      errorType: errorBodyType(op, alias),
      errorParts: errorBodyParts(op, alias),
      meta: metas.get(metaLiteral)!,
      listAll:
        canListAll && pg !== undefined
          ? {
              local: `${local}All`,
              key: propertyKey(`${method}All`),
              queryAt: args.findIndex((a) => a.name === 'query'),
              strategy: strategyName(pageStrategyLiteral(pg)),
              itemType: pageItemType(op, alias, pg),
              doc: [
                `Every item of \`${method}\`, fetching pages lazily as you iterate (${PAGE_STRATEGY_DOC[pg.strategy]}). Bounded by \`paging.maxPages\`; a failed page throws \`PaygateApiError\`.`,
              ],
            }
          : null,
    });
  }
  methods.sort((a, b) => compareStrings(a.group, b.group) || compareStrings(a.name, b.name));
  const tagDocs = new Map(model.tags.map((t) => [camelCase(t.name), [t.name, t.description ?? '']]));
  const groups: ClientGroupView[] = [];
  for (const m of methods) {
    let g = groups[groups.length - 1];
    if (g === undefined || g.key !== propertyKey(m.group)) {
      g = { key: propertyKey(m.group), doc: tagDocs.get(m.group) ?? [], methods: [] };
      groups.push(g);
    }
    const params = m.args.map((a) => `${a.name}${a.optional ? '?' : ''}: ${a.type}`).join(', ');
    const returns = `Promise<Result<${m.dataType}, ${m.errorType}>>`;
    // a method that listAll calls is a local const (typed by the interface); any other is built in place
    const impl = m.listAll === null ? `operation(send, ${m.operationArgs})` : m.local;
    g.methods.push({ key: m.key, local: m.local, doc: m.doc, params, returns, impl });
    if (m.listAll !== null) {
      const l = m.listAll;
      g.methods.push({
        key: l.key,
        local: l.local,
        doc: l.doc,
        params: `${params}, paging?: PagingOptions`,
        returns: `AsyncIterableIterator<${l.itemType}>`,
        impl: `pages(${m.local}, ${l.strategy}, ${l.queryAt})`,
      });
    }
  }
  groups.forEach((g) => g.methods.sort((a, b) => compareStrings(a.key, b.key)));
  return {
    methods,
    groups,
    metas: [...metas].map(([literal, name]) => ({ name, literal })),
    strategies: [...strategies].map(([literal, name]) => ({ name, literal })),
  };
}

/** Distinct error-type expressions up to which `Result<T>`'s default error is their union (else `unknown`). */
const MAX_DEFAULT_ERROR_UNION = 64;

/**
 * The default `E` of the generated `Result<T, E>`: the union of every operation's declared error bodies (so code
 * written as `Result<Order>` still reads the API's own error fields), `unknown` for a spec with none or too many.
 */
export function defaultErrorType(methods: readonly Pick<ClientMethodView, 'errorParts'>[]): string {
  const distinct = [...new Set(methods.flatMap((m) => m.errorParts))].sort(compareStrings);
  return distinct.length === 0 || distinct.length > MAX_DEFAULT_ERROR_UNION ? 'unknown' : distinct.join(' | ');
}

/** The spec's security schemes as the runtime's `SecuritySchemes` literal (D121 client auth per security scheme). */
export function securitySchemesLiteral(
  model: ApiModel,
): { name: string; key: string; literal: string; clientOption: string | false; doc: string }[] {
  return model.securitySchemes.map((s) => {
    let literal: string;
    if (s.type === 'apiKey')
      literal = `{ type: "apiKey", in: ${JSON.stringify(s.in === 'query' || s.in === 'cookie' ? s.in : 'header')}, name: ${JSON.stringify(s.parameterName ?? '')} }`;
    else if (s.type === 'http') literal = `{ type: "http", scheme: ${JSON.stringify((s.scheme ?? 'bearer').toLowerCase())} }`;
    else if (s.type === 'oauth2' || s.type === 'openIdConnect' || s.type === 'mutualTLS') literal = `{ type: ${JSON.stringify(s.type)} }`;
    else literal = `{ type: "http", scheme: "bearer" }`;
    const where =
      s.type === 'apiKey'
        ? `API key in ${s.in ?? 'header'} \`${s.parameterName ?? ''}\``
        : s.type === 'http'
          ? `HTTP ${(s.scheme ?? '').toLowerCase()}`
          : `${s.type} access token (Bearer)`;
    return {
      name: s.name,
      key: propertyKey(s.name),
      literal,
      clientOption: s.clientOption ?? false,
      doc: `${where}${s.description ? `: ${s.description}` : ''}`,
    };
  });
}

/** Header parameters the spec marks `x-client-option`: a client option that sets the header on every call (D121 client auth per security scheme). */
export function headerOptions(model: ApiModel): { option: string; header: string; doc: string }[] {
  const out = new Map<string, { option: string; header: string; doc: string }>();
  for (const op of model.operations) {
    for (const p of op.parameters.header) {
      const option = p.extensions['x-client-option'];
      if (typeof option === 'string' && !out.has(option))
        out.set(option, {
          option,
          header: p.name,
          doc: `Default \`${p.name}\` on every call (a per-call header overrides it)${p.description ? `: ${p.description}` : ''}`,
        });
    }
  }
  return [...out.values()].sort((a, b) => compareStrings(a.option, b.option));
}

export const clientEmitter: Emitter = {
  name: 'client',
  target: 'client',
  emit(ctx: EmitContext) {
    const base = clientBaseName(ctx.model.title, ctx.model.clientName);
    const { methods, groups, metas, strategies } = clientViews(ctx.model);
    const schemes = securitySchemesLiteral(ctx.model);
    const optionSchemes = schemes.filter((s) => s.clientOption !== false);
    const headerOpts = headerOptions(ctx.model);
    const identification = ctx.model.clientIdentification;
    const aliases = methods
      .filter(usesAlias)
      .map((m) => ({ alias: m.alias, ref: m.ref }))
      // in model order (O1, O2, ..., O10): D159
      .sort((a, b) => Number(a.alias.slice(1)) - Number(b.alias.slice(1)));
    const view = {
      header: ctx.header,
      runtime: runtimeSpecifier(ctx, 'client', ctx.out.client),
      contract: contractSpecifier(ctx, ctx.out.client),
      // a spec without operations (webhooks only) sends nothing: no caller, no meta (unused imports fail noUnusedLocals, D132)
      runtimeImports: [
        ...(methods.length > 0 ? ['createCaller', 'operation'] : []),
        ...(methods.some((m) => m.initArgs.includes('toFormData')) ? ['toFormData'] : []),
        ...(methods.some((m) => m.initArgs.includes('toUrlEncoded')) ? ['toUrlEncoded'] : []),
        'type CallOptions',
        ...(metas.length > 0 ? ['type OperationMeta'] : []),
      ].join(', '),
      sends: methods.length > 0,
      title: ctx.model.title,
      version: ctx.model.version,
      factory: `create${base}Client`,
      clientType: `${base}Client`,
      errorCodeType: `${base}ErrorCode`,
      usesPaginate: methods.some((m) => m.listAll !== null),
      optionsType: `${base}ClientOptions`,
      authType: `${base}Auth`,
      schemes,
      optionSchemes,
      headerOpts,
      identification: identification ?? false,
      defaultErrorType: defaultErrorType(methods),
      contractTypes: defaultErrorType(methods).includes('components["schemas"]') ? 'components, ErrorCode, paths' : 'ErrorCode, paths',
      hasIdempotency: metas.some((m) => m.literal.includes('idempotencyKey')),
      hasSecurity: schemes.length > 0,
      hasDefaults: headerOpts.length > 0 || identification !== undefined,
      metas,
      strategies,
      exampleAuth:
        schemes[0] === undefined
          ? ''
          : schemes[0].clientOption !== false
            ? `, ${schemes[0].clientOption}: '...'`
            : `, auth: { ${propertyKey(schemes[0].name)}: '...' }`,
      aliases,
      bodyType: JSON.stringify(methods).includes('Body<') ? BODY_TYPE : '',
      methods,
      groups,
    };
    return [
      { path: `${ctx.out.client}/client.gen.ts`, contents: ctx.templates.render('client/client', view) },
      { path: `${ctx.out.client}/index.ts`, contents: ctx.templates.render('client/index', view) },
    ];
  },
};
