/** runtime/json-media.ts: which declared media types are JSON by name (D484, "JSON bodies by media type name, ndjson line by line"). */
import { describe, expect, it } from 'vitest';
import { isJsonMediaType, isNdjsonMediaType, jsonBodyTypes, ndjsonBodyTypes } from './json-media.js';

describe('isJsonMediaType / isNdjsonMediaType', () => {
  it.each([
    ['application/json', true, false],
    ['application/json; charset=utf-8', true, false],
    ['Application/JSON', true, false],
    ['application/problem+json', true, false],
    ['application/vnd.api+json', true, false],
    ['text/json', true, false],
    ['text/json; charset=utf-8', true, false],
    ['application/x-json', true, false],
    ['text/x-json', true, false],
    ['application/ndjson', false, true],
    ['application/x-ndjson', false, true],
    ['application/jsonl', false, true],
    ['application/x-json-smile', false, false],
    ['application/x-jsonnet', false, false],
    ['applicationjson', false, false],
    ['text/plain', false, false],
    ['application/*', false, false],
  ] as [string, boolean, boolean][])('%s: JSON %s, ndjson %s', (mediaType, json, ndjson) => {
    expect(isJsonMediaType(mediaType)).toBe(json);
    expect(isNdjsonMediaType(mediaType)).toBe(ndjson);
  });
});

describe('the media types each parser reads for a spec', () => {
  it.each([
    { declared: [], json: ['application/json', 'application/*+json'], ndjson: [] },
    {
      declared: ['application/json', 'application/merge-patch+json', 'text/plain'],
      json: ['application/json', 'application/*+json'],
      ndjson: [],
    },
    {
      declared: ['text/json', 'text/json; charset=utf-8', 'application/x-json', 'text/vnd.a+json'],
      json: ['application/json', 'application/*+json', 'text/json', 'application/x-json', 'text/vnd.a+json'],
      ndjson: [],
    },
    {
      declared: ['application/ndjson', 'application/x-ndjson', 'application/ndjson'],
      json: ['application/json', 'application/*+json'],
      ndjson: ['application/ndjson', 'application/x-ndjson'],
    },
  ] as { declared: string[]; json: string[]; ndjson: string[] }[])('$declared', ({ declared, json, ndjson }) => {
    expect(jsonBodyTypes(declared)).toEqual(json);
    expect(ndjsonBodyTypes(declared)).toEqual(ndjson);
  });
});
