/** runtime/ndjson-lines.ts: each ndjson line validated against one line's schema (D484, "JSON bodies by media type name, ndjson line by line"). */
import { Ajv } from 'ajv';
import type { Request, Response } from 'express';
import { describe, expect, it } from 'vitest';
import { linewiseMediaTypes, validateEachLine } from './ndjson-lines.js';
import { type AjvError, type CompiledValidator, createRequestValidator } from './request-validation.js';
import type { ApiDocument, OperationRoute } from './types.js';

const exporter = { type: 'object', required: ['name'], properties: { name: { type: 'string' } } };

/** `POST /bulk` with this request body content; `Patch` and `Exporter` in components. */
function documentOf(content: Record<string, unknown>, requestBody: unknown = { content }): ApiDocument {
  return {
    openapi: '3.0.0',
    info: { title: 'T', version: '1' },
    paths: { '/bulk': { post: { operationId: 'bulk', requestBody, responses: { '200': { description: 'ok' } } } } },
    components: {
      schemas: { Exporter: exporter, Patch: { type: 'array', items: { type: 'object', required: ['op'] } } },
      requestBodies: { Bulk: { content } },
    },
  };
}

describe('linewiseMediaTypes', () => {
  it.each([
    {
      name: "an object schema (Otoroshi's exporters): each line",
      content: { 'application/ndjson': { schema: { $ref: '#/components/schemas/Exporter' } } },
      linewise: ['application/ndjson'],
    },
    {
      name: 'an array schema: the whole sequence',
      content: { 'application/ndjson': { schema: { $ref: '#/components/schemas/Patch' } } },
      linewise: [],
    },
    { name: 'an array without a type (items only)', content: { 'application/x-ndjson': { schema: { items: exporter } } }, linewise: [] },
    { name: 'no schema: each line (any value)', content: { 'application/x-ndjson': {} }, linewise: ['application/x-ndjson'] },
    { name: 'JSON media types are not ndjson', content: { 'application/json': { schema: exporter } }, linewise: [] },
  ])('$name', ({ content, linewise }) => {
    expect([...linewiseMediaTypes(documentOf(content), { path: '/bulk', method: 'post' })]).toEqual(linewise);
  });

  it('a request body by reference', () => {
    const document = documentOf({ 'application/ndjson': { schema: exporter } }, { $ref: '#/components/requestBodies/Bulk' });
    expect([...linewiseMediaTypes(document, { path: '/bulk', method: 'post' })]).toEqual(['application/ndjson']);
  });
});

describe('validateEachLine', () => {
  // as the generated validators are: `{ body }` validated, errors under `/body`
  const validate = new Ajv({ allErrors: true }).compile({
    type: 'object',
    required: ['body'],
    properties: { body: exporter },
  }) as CompiledValidator;
  it.each([
    { name: 'every line valid', lines: [{ name: 'a' }, { name: 'b' }], errors: [] },
    { name: 'no lines', lines: [], errors: [] },
    {
      name: 'the errors of each line at its place',
      lines: [{ name: 'a' }, { name: 1 }, []],
      errors: [
        { instancePath: '/body/1/name', keyword: 'type' },
        { instancePath: '/body/2', keyword: 'type' },
      ],
    },
    { name: 'a missing property at the line', lines: [{}], errors: [{ instancePath: '/body/0', keyword: 'required' }] },
  ])('$name', ({ lines, errors }) => {
    const out: AjvError[] = [];
    validateEachLine(validate, lines, out);
    expect(out.map((e) => ({ instancePath: e.instancePath, keyword: e.keyword }))).toEqual(errors);
  });
});

describe('the validate step on ndjson lines', () => {
  const ajv = new Ajv({ allErrors: true });
  const body = (schema: unknown) => ajv.compile({ type: 'object', required: ['body'], properties: { body: schema } }) as CompiledValidator;
  const operation = { operationId: 'bulk', method: 'post', path: '/bulk', fileFields: [] } as unknown as OperationRoute;
  /** The paths of the rejection, or [] when the lines pass. */
  const paths = (schema: unknown, linewise: boolean, lines: unknown[]): string[] => {
    const [validate] = createRequestValidator(
      operation,
      { parameters: [], queryNames: [], body: { required: true, content: [{ mediaType: 'application/ndjson', validate: body(schema) }] } },
      {
        allow: 'POST',
        uploadLimits: { fileSize: 1, files: 1, fields: 1, fieldSize: 1 },
        ...(linewise ? { linewise: new Set(['application/ndjson']) } : {}),
      },
    );
    const req = { method: 'POST', originalUrl: '/bulk', headers: { 'content-type': 'application/ndjson' }, params: {}, body: lines };
    let out: string[] = [];
    validate!(req as unknown as Request, {} as Response, (error?: unknown) => {
      out = error === undefined ? [] : (error as { errors: { path: string }[] }).errors.map((e) => e.path);
    });
    return out;
  };
  it.each([
    { name: "one line's schema: each line", schema: exporter, linewise: true, lines: [{ name: 'a' }, {}], paths: ['/body/1/name'] },
    { name: "one line's schema, every line valid", schema: exporter, linewise: true, lines: [{ name: 'a' }], paths: [] },
    {
      name: 'an array schema: the sequence',
      schema: { type: 'array', items: exporter, maxItems: 1 },
      linewise: false,
      lines: [{ name: 'a' }, { name: 'b' }],
      paths: ['/body'],
    },
    {
      name: 'an array schema, an item refused',
      schema: { type: 'array', items: exporter },
      linewise: false,
      lines: [{ name: 1 }],
      paths: ['/body/0/name'],
    },
  ])('$name', ({ schema, linewise, lines, paths: expected }) => {
    expect(paths(schema, linewise, lines)).toEqual(expected);
  });
});
