/** request-validation.ts: parameters read as the operation declares them, and what the dispatcher asks of them (D469 a path routed to the template whose parameters accept it). */
import { Ajv } from 'ajv';
import type { Request, Response } from 'express';
import { describe, expect, it } from 'vitest';
import {
  createRequestValidator,
  type OperationRequestValidators,
  pathParametersAccepted,
  queryParametersAccepted,
  queryParametersFit,
} from './request-validation.js';
import type { OperationRoute } from './types.js';

const ajv = new Ajv({ coerceTypes: true, useDefaults: true, allErrors: true });
ajv.addFormat('uuid', /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
const operation = { operationId: 'op', method: 'get', path: '/' } as unknown as OperationRoute;
const limits = { fileSize: 1, files: 1, fields: 1, fieldSize: 1 };

/** Runs the validator over a query (as Express parsed it); the query it leaves, or the rejection's paths. */
function validateQuery(v: OperationRequestValidators, query: Record<string, string>): unknown {
  const [validate] = createRequestValidator(operation, v, { allow: 'GET', uploadLimits: limits });
  const req = { method: 'GET', originalUrl: `/?${new URLSearchParams(query)}`, query: { ...query }, headers: {}, params: {} };
  let out: unknown;
  validate!(req as unknown as Request, {} as Response, (error?: unknown) => {
    out = error === undefined ? req.query : (error as { errors: { path: string }[] }).errors.map((e) => e.path);
  });
  return out;
}

describe('a form-exploded object and a declared parameter of the same name', () => {
  // AWS: a required `Version` beside an optional `LaunchTemplate` object whose properties include `Version`
  const v: OperationRequestValidators = {
    query: ajv.compile({
      type: 'object',
      properties: {
        Version: { type: 'string', enum: ['2011-01-01'] },
        LaunchTemplate: { type: 'object', properties: { LaunchTemplateId: { type: 'string' }, Version: { type: 'string' } } },
      },
      required: ['Version'],
    }),
    parameters: [
      { name: 'LaunchTemplate', in: 'query', parse: 'formExplode', properties: ['LaunchTemplateId', 'Version'] },
      { name: 'Version', in: 'query', parse: 'none' },
    ],
    queryNames: ['Version', 'LaunchTemplate', 'LaunchTemplateId'],
  };
  it.each([
    ['the declared parameter keeps its key', { Version: '2011-01-01' }, { Version: '2011-01-01' }],
    [
      // D456 query objects and arrays of objects serialised: a key another parameter declares is read by both (one key on the wire)
      'the object takes its other properties, and reads the shared key too',
      { Version: '2011-01-01', LaunchTemplateId: 'lt-1' },
      { Version: '2011-01-01', LaunchTemplate: { LaunchTemplateId: 'lt-1', Version: '2011-01-01' } },
    ],
    ['a missing required parameter is still refused', { LaunchTemplateId: 'lt-1' }, ['/query/Version']],
  ])('%s', (_label, query, expected) => {
    expect(validateQuery(v, query)).toEqual(expected);
  });
});

describe('what the dispatcher asks of an operation (D469 a path routed to the template whose parameters accept it)', () => {
  const v: OperationRequestValidators = {
    params: ajv.compile({ type: 'object', properties: { id: { type: 'string', format: 'uuid' }, n: { type: 'integer' } } }),
    parameters: [{ name: 'n', in: 'path', parse: 'none' }],
    queryNames: ['projectId', 'filter'],
  };
  it.each([
    [{ id: '3f1c2b8e-7d4a-4e59-9b1f-2a6c8d0e5f71', n: '2' }, true],
    [{ id: 'report.pdf', n: '2' }, false],
    [{ id: '3f1c2b8e-7d4a-4e59-9b1f-2a6c8d0e5f71', n: 'two' }, false],
  ])('path %j: %s', (params, accepted) => {
    const accepts = pathParametersAccepted(v)!;
    const copy = { ...params };
    expect(accepts(params)).toBe(accepted);
    expect(params).toEqual(copy); // read on a copy: the request's own values are not coerced
  });

  it.each([
    ['projectId=p', true],
    ['projectId=p&filter=f', true],
    ['filter[name]=f&projectId=p', true],
    ['other=1&projectId=p', false],
    ['filter=f', false],
  ])('query %s: %s', (search, accepted) => {
    expect(queryParametersAccepted(v, operation, ['projectId'])(new URLSearchParams(search))).toBe(accepted);
  });

  it.each([
    ['projectId=p', { unknown: 0, missing: 0 }],
    ['projectId=p&other=1&more=2&more=3', { unknown: 2, missing: 0 }],
    ['filter=f', { unknown: 0, missing: 1 }],
    ['', { unknown: 0, missing: 1 }],
  ])('query %s: fit %j (D485, "Operations told apart by their bodies dispatched by body schema")', (search, expected) => {
    expect(queryParametersFit(v, operation, ['projectId'])(new URLSearchParams(search))).toEqual(expected);
  });

  it('an operation validating no path parameter takes any path', () => {
    expect(pathParametersAccepted({ parameters: [], queryNames: [] })).toBeUndefined();
  });
});

describe('an object path parameter (D413, "Object path parameters read by their style")', () => {
  // Jellyfin's `DELETE /Plugins/{pluginId}/{version}`: `version` a .NET Version, integers only, no other property
  const version = {
    type: 'object',
    additionalProperties: false,
    properties: { Major: { type: 'integer' }, Minor: { type: 'integer' }, Build: { type: 'integer' } },
  };
  const v: OperationRequestValidators = {
    params: ajv.compile({ type: 'object', properties: { version }, required: ['version'] }),
    parameters: [{ name: 'version', in: 'path', parse: 'pathStyle', shape: 'object' }],
    queryNames: [],
  };
  /** The params the validator leaves, or the rejection's `{ path, message }`s. */
  function validatePath(params: Record<string, string>): unknown {
    const [validate] = createRequestValidator(operation, v, { allow: 'GET', uploadLimits: limits });
    const req = { method: 'GET', originalUrl: '/', query: {}, headers: {}, params: { ...params } };
    let out: unknown;
    validate!(req as unknown as Request, {} as Response, (error?: unknown) => {
      out = error === undefined ? req.params : (error as { errors: { path: string; message: string }[] }).errors;
    });
    return out;
  }

  it.each<[string, string, unknown]>([
    ['its properties coerced by their schemas', 'Major,10,Minor,7', { version: { Major: 10, Minor: 7 } }],
    ['a property its schema refuses', 'Major,ten', [{ path: '/params/version/Major', message: 'must be integer' }]],
    [
      'a property the object does not declare',
      'Major,10,Revision,2',
      [{ path: '/params/version/Revision', message: 'must NOT have additional properties' }],
    ],
    [
      'a value not written in the style: 400 naming the parameter',
      'Major,10,Minor',
      [{ path: '/params/version', message: "must be written in the 'simple' style, as R,100,G,200" }],
    ],
  ])('%s: %s', (_label, raw, expected) => {
    expect(validatePath({ version: raw })).toEqual(expected);
  });

  // Microsoft Graph's `includedUserTypes`: `anyOf: [{string enum}, {type: object, nullable}]`
  const either = {
    anyOf: [
      { type: 'string', enum: ['all', 'member'] },
      { type: 'object', nullable: true },
    ],
  };
  const graph: OperationRequestValidators = {
    params: ajv.compile({ type: 'object', properties: { kind: either }, required: ['kind'] }),
    parameters: [{ name: 'kind', in: 'path', parse: 'pathStyle', shape: 'object', orPrimitive: true }],
    queryNames: [],
  };
  it.each<[string, string, unknown]>([
    ['a value not written as an object is read as text: the string alternative takes it', 'all', { kind: 'all' }],
    ['an object still read as one', 'a,1', { kind: { a: '1' } }],
    ['text no alternative takes: 400 from the schema', 'nobody', 'refused'],
  ])('or a primitive (orPrimitive): %s', (_label, raw, expected) => {
    const [validate] = createRequestValidator(operation, graph, { allow: 'GET', uploadLimits: limits });
    const req = { method: 'GET', originalUrl: '/', query: {}, headers: {}, params: { kind: raw } };
    let out: unknown;
    validate!(req as unknown as Request, {} as Response, (error?: unknown) => {
      out = error === undefined ? req.params : 'refused';
    });
    expect(out).toEqual(expected);
  });

  it.each([
    ['Major,10', true],
    ['Major,ten', false],
    ['Major', false],
  ])('the dispatcher asks whether %s is taken: %s (no throw)', (raw, accepted) => {
    expect(pathParametersAccepted(v)!({ version: raw })).toBe(accepted);
  });
});
