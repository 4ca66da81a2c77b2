/** runtime/body-accepted.ts: an operation's body schema read with its own validators (D485, "Operations told apart by their bodies dispatched by body schema"). */
import { Ajv } from 'ajv';
import type { Request } from 'express';
import { describe, expect, it } from 'vitest';
import { bodyAccepted } from './body-accepted.js';
import type { CompiledValidator, OperationRequestValidators } from './request-validation.js';

const ajv = new Ajv({ useDefaults: true, allErrors: true });
/** As the generated validators are: `{ body }` validated. */
const body = (schema: unknown) => ajv.compile({ type: 'object', required: ['body'], properties: { body: schema } }) as CompiledValidator;
const person = { type: 'object', required: ['faceId', 'personId'], properties: { mode: { type: 'string', default: 'match' } } };
const validators = (content: { mediaType: string; schema: unknown }[], multipart = false): OperationRequestValidators => ({
  parameters: [],
  queryNames: [],
  body: { required: true, content: content.map((c) => ({ mediaType: c.mediaType, validate: body(c.schema) })) },
  ...(multipart ? { multipart: true } : {}),
});
const request = (type: string | undefined, value: unknown) =>
  ({ headers: type === undefined ? {} : { 'content-type': type }, body: value }) as unknown as Request;

describe('bodyAccepted', () => {
  const accepts = bodyAccepted(validators([{ mediaType: 'application/json', schema: person }]))!;
  it.each([
    ['a body the schema accepts', 'application/json', { faceId: 'f', personId: 'p' }, true],
    ['with a charset', 'application/json; charset=utf-8', { faceId: 'f', personId: 'p' }, true],
    ['a required property missing', 'application/json', { faceId1: 'f', faceId2: 'g' }, false],
    ['a media type it does not declare', 'text/plain', { faceId: 'f', personId: 'p' }, false],
    ['no Content-Type', undefined, { faceId: 'f', personId: 'p' }, false],
  ] as [string, string | undefined, unknown, boolean][])('%s: %s', (_name, type, value, expected) => {
    expect(accepts(request(type, value))).toBe(expected);
  });

  it("validates a copy: the schema's defaults are not written into the request's body", () => {
    const value = { faceId: 'f', personId: 'p' };
    expect(accepts(request('application/json', value))).toBe(true);
    expect(value).toEqual({ faceId: 'f', personId: 'p' });
  });

  it("ndjson lines of one line's schema: each line", () => {
    const lines = bodyAccepted(validators([{ mediaType: 'application/ndjson', schema: person }]), new Set(['application/ndjson']))!;
    expect(lines(request('application/ndjson', [{ faceId: 'f', personId: 'p' }]))).toBe(true);
    expect(lines(request('application/ndjson', [{ faceId: 'f', personId: 'p' }, {}]))).toBe(false);
  });

  it('no check for an operation without a body or with a multipart one (parsed later, by its validation)', () => {
    expect(bodyAccepted({ parameters: [], queryNames: [] })).toBeUndefined();
    expect(bodyAccepted(validators([{ mediaType: 'multipart/form-data', schema: {} }], true))).toBeUndefined();
  });
});
