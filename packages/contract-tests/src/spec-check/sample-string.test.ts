import addFormatsModule from 'ajv-formats';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { stringSample } from './sample-string.js';
import type { JsonObject } from './samples.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const ajv = addFormats(new Ajv2020({ strict: false, validateSchema: false }));
/** The whole-schema check a caller with the document passes (format included). */
const fits = (schema: JsonObject) => (value: string) => ajv.validate(schema, value);

describe('stringSample (D425)', () => {
  it.each<{ name: string; schema: JsonObject }>([
    {
      name: 'lookaheads (a password rule)',
      schema: { type: 'string', pattern: '^(?=.*[a-z])(?=.*[A-Z])(?=.*\\d)(?=.*[@$!%*?&])[A-Za-z\\d@$!%*?&]{8,}$' },
    },
    {
      name: "lookaheads and alternatives with a length bound (AWS Directory Service's password)",
      schema: {
        type: 'string',
        pattern:
          '(?=^.{8,64}$)((?=.*\\d)(?=.*[A-Z])(?=.*[a-z])|(?=.*\\d)(?=.*[^A-Za-z0-9\\s])(?=.*[a-z])|(?=.*[^A-Za-z0-9\\s])(?=.*[A-Z])(?=.*[a-z])|(?=.*\\d)(?=.*[A-Z])(?=.*[^A-Za-z0-9\\s]))^.*',
      },
    },
    {
      name: 'a negative lookahead in a repetition (an AWS domain name)',
      schema: {
        type: 'string',
        pattern: '^(\\*\\.)?(((?!-)[A-Za-z0-9-]{0,62}[A-Za-z0-9])\\.)+((?!-)[A-Za-z0-9-]{1,62}[A-Za-z0-9])$',
        minLength: 1,
        maxLength: 253,
      },
    },
    {
      name: 'word boundaries (a UUID in AWS Inspector)',
      schema: { type: 'string', pattern: '\\b[a-f0-9]{8}\\b-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{4}-\\b[a-f0-9]{12}\\b' },
    },
    { name: 'an anchor inside an alternative', schema: { type: 'string', pattern: '^[a-z]{3}$|^[0-9]{5}$', minLength: 5 } },
    { name: 'a Unicode letter class', schema: { type: 'string', pattern: '^\\p{Lu}\\p{Ll}+$' } },
    { name: 'a Unicode escape range', schema: { type: 'string', pattern: '^[\\u0400-\\u04FF]{2,4}$' } },
    {
      name: 'a pattern and a minLength above its short matches',
      schema: { type: 'string', pattern: '^[a-z0-9]+$', minLength: 16, maxLength: 16 },
    },
    { name: 'a pattern and a maxLength', schema: { type: 'string', pattern: '^[A-Z]{2,}-[0-9]+$', maxLength: 5 } },
    {
      name: "a pattern the format's sample breaks (an email limited to one domain)",
      schema: { type: 'string', format: 'email', pattern: '^[a-z]+@corp\\.example$' },
    },
    {
      name: 'a format, a pattern and a maxLength together',
      schema: { type: 'string', format: 'email', pattern: '^[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\\.[a-zA-Z]{2,}$', maxLength: 12 },
    },
    {
      name: 'a date-time narrowed by a pattern',
      schema: { type: 'string', format: 'date-time', pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$' },
    },
    {
      name: 'a lookahead a length bound narrows (one dash at most)',
      schema: { type: 'string', pattern: '^(?!.*--)[a-z-]+$', minLength: 10, maxLength: 12 },
    },
  ])('$name', ({ schema }) => {
    const value = stringSample(schema, fits(schema));
    expect(ajv.validate(schema, value), JSON.stringify(value)).toBe(true);
  });

  it('gives the same string on every call (fixed seeds)', () => {
    const schema = { type: 'string', pattern: '^(?=.*[A-Z])(?=.*[0-9]).{12,}$' };
    const first = stringSample(schema, fits(schema));
    expect(stringSample(schema, fits(schema))).toBe(first);
    expect(first).toMatch(/^(?=.*[A-Z])(?=.*[0-9]).{12,}$/u);
  });

  it('prefers a plain word, then the format sample, when they fit', () => {
    expect(stringSample({ type: 'string', pattern: '^\\S+$' })).toBe('sample');
    expect(stringSample({ type: 'string', format: 'date' })).toBe('2026-01-02');
  });

  it('falls back to a plain string within the length bounds when the pattern cannot be met (a contradiction)', () => {
    const value = stringSample({ type: 'string', pattern: '^[a-z]{10,}$', maxLength: 5 });
    expect(value.length).toBeLessThanOrEqual(5);
  });
});
