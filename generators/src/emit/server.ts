import { bodyIsLineArray } from '../model/ndjson.js';
import type { OperationModel, ResponseModel, SchemaModel } from '../model/types.js';
import type { Emitter, EmitContext } from './context.js';
import { contractSpecifier, runtimeSpecifier } from './context.js';
import {
  BODY_TYPE,
  bodyRef,
  briefDescription,
  operationAliases,
  operationTypeNames,
  operationTypeRef,
  propertyKey,
  usesAlias,
} from './names.js';

export interface FieldView {
  key: string;
  optional: boolean;
  type: string;
}

export interface ResponseVariantView {
  /** `Reply<200, O1["responses"][200]>` for the common variant (one JSON media type, no declared headers), else null (D159 short numbered operation type aliases). */
  reply: string | null;
  status: string;
  contentType: string | null;
  contentTypeOptional: boolean;
  body: string | null;
  headers: string | null;
  headersOptional: boolean;
}

export interface HandlerOperationView {
  key: string;
  operationId: string;
  typeName: string;
  alias: string;
  ref: string;
  doc: string[];
  params: FieldView[];
  query: string;
  headers: FieldView[];
  body: string;
  responses: ResponseVariantView[];
}

const FORM_KIND_TYPES = { file: 'UploadedFile', files: 'UploadedFile[]', string: 'string', strings: 'string[]' } as const;

function responseKey(r: ResponseModel): string {
  return /^\d{3}$/.test(r.status) ? r.status : JSON.stringify(r.status);
}

/** `Status4XX` for a whole range, `Exclude<Status4XX, 400 | 404>` when exact siblings are declared. */
export function rangeStatusType(r: ResponseModel, op: OperationModel): string {
  const digit = r.status[0]!;
  const siblings = op.responses.filter((x) => x.kind === 'exact' && x.status[0] === digit).map((x) => x.status);
  return siblings.length === 0 ? `Status${digit}XX` : `Exclude<Status${digit}XX, ${siblings.join(' | ')}>`;
}

function responseVariants(op: OperationModel, alias: string): ResponseVariantView[] {
  const out: ResponseVariantView[] = [];
  for (const r of op.responses) {
    if (r.kind === 'range' && r.statusCodes.length === 0) continue;
    const status = r.kind === 'exact' ? r.status : r.kind === 'default' ? 'number' : rangeStatusType(r, op);
    const base = `${alias}["responses"][${responseKey(r)}]`;
    const headers = r.headers.length > 0 ? `${base}["headers"]` : null;
    const headersOptional = !r.headers.some((h) => h.required);
    if (r.content.length === 0) {
      out.push({ reply: null, status, contentType: null, contentTypeOptional: true, body: null, headers, headersOptional });
      continue;
    }
    for (const media of r.content) {
      const common = r.content.length === 1 && headers === null && media.mediaType === 'application/json';
      out.push({
        reply: common ? `Reply<${status}, ${base}>` : null,
        status,
        contentType: JSON.stringify(media.mediaType),
        contentTypeOptional: r.content.length === 1,
        body: bodyRef(alias, responseKey(r), media.mediaType),
        headers,
        headersOptional,
      });
    }
  }
  return out;
}

function bodyType(op: OperationModel, alias: string, schemas: readonly SchemaModel[]): string {
  const rb = op.requestBody;
  if (rb === undefined || rb.content.length === 0) return 'undefined';
  const variants = rb.content.map((media) => {
    if (media.fields !== undefined && media.mediaType.startsWith('multipart/')) {
      const fields = media.fields.map((f) => `${propertyKey(f.name)}${f.required ? '' : '?'}: ${FORM_KIND_TYPES[f.kind]}`);
      return `{ ${fields.join('; ')} }`;
    }
    const declared = `NonNullable<${alias}["requestBody"]>["content"][${JSON.stringify(media.mediaType)}]`;
    // D484, "JSON bodies by media type name, ndjson line by line": a schema of one line, the array of every line's value
    return bodyIsLineArray(media, schemas) ? `Array<${declared}>` : declared;
  });
  const unique = [...new Set(variants)];
  if (!rb.required) unique.push('undefined');
  return unique.join(' | ');
}

export function handlerOperationViews(operations: readonly OperationModel[], schemas: readonly SchemaModel[]): HandlerOperationView[] {
  const names = operationTypeNames(operations);
  const aliases = operationAliases(operations);
  return operations.map((op) => {
    const typeName = names.get(op.operationId)!;
    const alias = aliases.get(op.operationId)!;
    return {
      key: propertyKey(op.operationId),
      operationId: op.operationId,
      typeName,
      alias,
      ref: operationTypeRef(op),
      doc: [
        op.summary ?? '',
        briefDescription(op.description),
        `\`${op.method.toUpperCase()} ${op.path}\`${op.deprecated ? ' (deprecated)' : ''}`,
      ],
      params: op.parameters.path.map((p) => ({
        key: propertyKey(p.name),
        optional: false,
        type: p.declared ? `${alias}["parameters"]["path"][${JSON.stringify(p.name)}]` : 'string',
      })),
      query: op.parameters.query.length > 0 ? `NonNullable<${alias}["parameters"]["query"]>` : 'Record<string, never>',
      headers: op.parameters.header.map((p) => ({
        key: JSON.stringify(p.name.toLowerCase()),
        optional: !p.required,
        type: `NonNullable<NonNullable<${alias}["parameters"]["header"]>[${JSON.stringify(p.name)}]>`,
      })),
      body: bodyType(op, alias, schemas),
      responses: responseVariants(op, alias),
    };
  });
}

/** `type Status4XX = 400 | ... | 499` for every range some response uses. */
export function statusRangeViews(operations: readonly OperationModel[]): { name: string; codes: string }[] {
  const digits = new Set<string>();
  for (const op of operations) for (const r of op.responses) if (r.kind === 'range') digits.add(r.status[0]!);
  return [...digits].sort().map((d) => ({
    name: `Status${d}XX`,
    codes: Array.from({ length: 100 }, (_, i) => Number(d) * 100 + i).join(' | '),
  }));
}

/**
 * D159: the common response variant (one JSON media type, no declared headers) as `Reply<200, O1["responses"][200]>`
 * instead of its spelled-out object type (GitHub: 2,500 variants of ~150 characters each).
 */
const REPLY_TYPE =
  'type Reply<S, R extends { content: { "application/json": unknown } }> = { status: S; contentType?: "application/json"; body: R["content"]["application/json"]; headers?: Record<string, string> };';

export const serverHandlersEmitter: Emitter = {
  name: 'server/handlers',
  target: 'server',
  emit: (ctx: EmitContext) => {
    const operations = handlerOperationViews(ctx.model.operations, ctx.model.schemas);
    const variants = operations.flatMap((op) => op.responses);
    return [
      {
        path: `${ctx.out.server}/handlers.gen.ts`,
        contents: ctx.templates.render('server/handlers', {
          header: ctx.header,
          runtimeTypes: runtimeSpecifier(ctx, 'server', ctx.out.server, 'types.js'),
          contract: contractSpecifier(ctx, ctx.out.server),
          title: ctx.model.title,
          operations,
          // only what the types use: unused imports, aliases and helpers fail users' noUnusedLocals (D132 noUnusedLocals and noUnusedParameters everywhere)
          aliases: operations.filter(usesAlias),
          helpers: [
            ...(variants.some((v) => v.reply === null && v.body !== null) ? [BODY_TYPE] : []),
            ...(variants.some((v) => v.reply !== null) ? [REPLY_TYPE] : []),
          ],
          uploads: JSON.stringify(operations).includes('UploadedFile'),
          statusRanges: statusRangeViews(ctx.model.operations),
        }),
      },
    ];
  },
};
