import express from 'express';
import { describe, expect, it } from 'vitest';
import type { OperationRoute } from '../types.js';
import { declaredMediaTypes, jsonText, RenderedResponse, renderResult } from './serialize.js';

const operation = {
  operationId: 'getThing',
  responses: { '200': ['application/json'], '4XX': ['application/problem+json'], default: ['text/plain'] },
} as unknown as OperationRoute;

describe('serialize step', () => {
  it('the media types of a status: the exact key, else its range, else default', () => {
    expect(declaredMediaTypes(operation, 200)).toEqual(['application/json']);
    expect(declaredMediaTypes(operation, 404)).toEqual(['application/problem+json']);
    expect(declaredMediaTypes(operation, 503)).toEqual(['text/plain']);
  });

  it('a JSON result: the declared media type, headers as strings (undefined ones dropped), the JSON text', () => {
    const rendered = renderResult(express(), undefined, operation, {
      status: 200,
      body: { id: 1 },
      headers: { 'X-Count': 2, 'X-None': undefined },
    });
    expect(rendered).toEqual(new RenderedResponse(200, 'application/json', { 'X-Count': '2' }, '{"id":1}'));
  });

  it("the handler's content type wins; text and bytes are sent as they are; no body, no content type", () => {
    const bytes = new Uint8Array([1, 2, 3]);
    expect(renderResult(express(), undefined, operation, { status: 200, body: 'hi', contentType: 'text/csv' }).body).toBe('hi');
    expect(renderResult(express(), undefined, operation, { status: 200, body: bytes, contentType: 'application/pdf' }).body).toBe(bytes);
    expect(renderResult(express(), undefined, operation, { status: 204 })).toEqual(new RenderedResponse(204, null, {}, undefined));
  });

  it("JSON exactly as Express writes it, with the app's json spaces and json escape", () => {
    const app = express();
    app.set('json spaces', 1);
    app.set('json escape', true);
    expect(jsonText(app, { a: '<b>' })).toBe('{\n "a": "\\u003cb\\u003e"\n}');
  });

  it('a result without a status names the handler', () => {
    expect(() => renderResult(express(), undefined, operation, { body: {} } as never)).toThrow('Handler getThing returned no { status }');
  });
});
