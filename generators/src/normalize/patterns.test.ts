import { describe, expect, it } from 'vitest';
import { UnsupportedSpecError } from '../parse/refusal.js';
import { normalizePatterns, unicodePattern } from './patterns.js';

/** PayPal's RFC 5322 e-mail pattern (checkout_orders_v2.json): a lone `]` at the end makes `u` refuse it. */
const PAYPAL_EMAIL =
  "(?:[a-zA-Z0-9!#$%&'*+/=?^_`{|}~-]+(?:\\.[a-zA-Z0-9!#$%&'*+/=?^_`{|}~-]+)*|(?:[\\x01-\\x08\\x0b\\x0c\\x0e-\\x1f\\x21\\x23-\\x5b\\x5d-\\x7f]|\\[\\x01-\\x09\\x0b\\x0c\\x0e-\\x7f])*\")@(?:(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?\\.)+[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?|\\[(?:(?:(2(5[0-5]|[0-4][0-9])|1[0-9][0-9]|[1-9]?[0-9]))\\.){3}(?:(2(5[0-5]|[0-4][0-9])|1[0-9][0-9]|[1-9]?[0-9])|[a-zA-Z0-9-]*[a-zA-Z0-9]:(?:[\\x01-\\x08\\x0b\\x0c\\x0e-\\x1f\\x21-\\x5a\\x53-\\x7f]|\\[\\x01-\\x09\\x0b\\x0c\\x0e-\\x7f])+)\\])";

/** Strings each translated pattern must judge exactly like the original does without `u`. */
const PROBES = [
  '',
  'a',
  'a]',
  'x{',
  '}',
  'a{,5}',
  'aaaaa',
  'ab',
  'b',
  '-',
  '.',
  'w',
  '_',
  '!',
  '?',
  '\\c',
  'c',
  '8',
  'x-y',
  '3',
  'é]',
  '[]',
  '{}',
  'a{1}',
  'buyer@example.com',
  'first.last@sub.example.co',
  '"quoted"@example.com',
  'user@[192.168.0.1]',
  'not an email',
  'a@b',
  '@example.com',
  'x@y.z]',
];

describe('unicodePattern', () => {
  it.each([
    ['a lone ] (the RFC 5322 e-mail pattern of PayPal)', PAYPAL_EMAIL],
    ['a lone ]', 'a]'],
    ['a lone {', 'x{'],
    ['a lone }', '}'],
    ['a brace that is no quantifier', 'a{,5}'],
    ['identity escapes', '^[a-z\\!?]+\\!$'],
    ['a class escape in a range', '^[\\w-.]+$'],
    ['a class escape before a dash', '^[\\d-x]$'],
    ['a quantified lookahead', '(?=a)*a'],
    ['\\8 (no such group: the digit)', '^\\8$'],
    ['\\c without a letter', '^\\c$'],
    ['a lone ] after a non-ASCII letter', 'é]'],
  ])('translates a pattern valid only without u: %s', (_name, pattern) => {
    expect(() => new RegExp(pattern, 'u')).toThrow();
    const outcome = unicodePattern(pattern);
    expect(outcome.kind).toBe('translated');
    const translated = outcome.kind === 'translated' ? outcome.pattern : '';
    const legacy = new RegExp(pattern);
    const unicode = new RegExp(translated, 'u');
    for (const probe of PROBES) expect(unicode.test(probe), `${JSON.stringify(probe)} against ${translated}`).toBe(legacy.test(probe));
  });

  it('keeps the meaning of the e-mail pattern: addresses pass, the rest does not', () => {
    const outcome = unicodePattern(PAYPAL_EMAIL);
    const email = new RegExp(`^(?:${outcome.kind === 'translated' ? outcome.pattern : ''})$`, 'u');
    expect(['buyer@example.com', 'first.last@sub.example.co', 'user@[192.168.0.1]'].map((s) => email.test(s))).toEqual([true, true, true]);
    expect(['not an email', '@example.com', 'a@', 'a@b c.com'].map((s) => email.test(s))).toEqual([false, false, false, false]);
  });

  it.each([
    ['inline flags (PayPal invoicing_v2)', '(?i)^(all|none)$'],
    ['an unterminated class', '[a-z'],
    ['an unterminated group', '(ab'],
    ['nothing to repeat', '*a'],
    ['a range out of order', '[z-a]'],
  ])('refuses a pattern invalid with and without u: %s', (_name, pattern) => {
    expect(() => new RegExp(pattern)).toThrow();
    expect(unicodePattern(pattern)).toMatchObject({ kind: 'invalid', reason: expect.stringContaining('Invalid regular expression') });
  });

  it.each([
    ['a plain pattern', '^OD\\d{16}$'],
    ['escaped brackets', '^\\[[a-z]+\\]$'],
    ['a character class with - at the end', '^[a-z0-9_-]+$'],
    ['a unicode escape (u semantics: the letter A)', '^\\u{41}$'],
    ['a property escape', '^\\p{L}+$'],
  ])('keeps a pattern valid with u unchanged: %s', (_name, pattern) => {
    expect(unicodePattern(pattern)).toEqual({ kind: 'unicode', pattern });
  });
});

describe('normalizePatterns', () => {
  const document = {
    openapi: '3.0.3',
    paths: {
      '/payers': {
        post: {
          parameters: [{ name: 'q', in: 'query', schema: { type: 'string', pattern: '^[\\w-.]+$' } }],
          requestBody: {
            content: {
              'application/json': {
                schema: { $ref: '#/components/schemas/Payer' },
                examples: { one: { value: { pattern: 'a]{' } } },
              },
            },
          },
          responses: { default: { description: 'Any', content: { 'application/json': { schema: { type: 'string', pattern: 'x{' } } } } },
        },
      },
    },
    components: {
      schemas: {
        Payer: {
          type: 'object',
          properties: {
            email: { type: 'string', pattern: PAYPAL_EMAIL },
            // A property named like keywords is a schema all the same.
            pattern: { type: 'string', pattern: 'a]' },
            default: { type: 'string', pattern: '}' },
            plain: { type: 'string', pattern: '^ok$', example: 'ok', 'x-note': { pattern: '(' } },
          },
          patternProperties: { '^x-[\\w-.]+$': { type: 'string' } },
          example: { pattern: '(' },
        },
      },
    },
  };

  it('rewrites every pattern valid only without u, where it is, and lists them', () => {
    const { document: out, translated } = normalizePatterns(document, 'spec.json');
    expect(translated.map((t) => t.pointer).sort()).toEqual([
      '#/components/schemas/Payer/patternProperties/^x-[\\w-.]+$',
      '#/components/schemas/Payer/properties/default/pattern',
      '#/components/schemas/Payer/properties/email/pattern',
      '#/components/schemas/Payer/properties/pattern/pattern',
      '#/paths/~1payers/post/parameters/0/schema/pattern',
      '#/paths/~1payers/post/responses/default/content/application~1json/schema/pattern',
    ]);
    expect(out.paths['/payers'].post.parameters[0]!.schema.pattern).toBe('^[\\w\\-.]+$');
    expect(Object.keys(out.components.schemas.Payer.patternProperties)).toEqual(['^x-[\\w\\-.]+$']);
    expect(out.components.schemas.Payer.properties.pattern.pattern).toBe('a\\]');
  });

  it('leaves examples, defaults and extensions alone, and never mutates its input', () => {
    const before = structuredClone(document);
    const { document: out } = normalizePatterns(document, 'spec.json');
    expect(document).toEqual(before);
    expect(out.components.schemas.Payer.example).toEqual({ pattern: '(' });
    expect(out.components.schemas.Payer.properties.plain).toBe(document.components.schemas.Payer.properties.plain);
    expect(out.paths['/payers'].post.requestBody.content['application/json'].examples).toBe(
      document.paths['/payers'].post.requestBody.content['application/json'].examples,
    );
  });

  it('returns the very document when every pattern is valid with u', () => {
    const valid = { components: { schemas: { Id: { type: 'string', pattern: '^OD\\d{16}$' } } } };
    expect(normalizePatterns(valid, 'spec.json')).toEqual({ document: valid, translated: [], dropped: [] });
    expect(normalizePatterns(valid, 'spec.json').document).toBe(valid);
  });

  it('leaves out a pattern that is no regular expression (D206), listing its pointer, the problem and the fix', () => {
    const invalid = {
      components: { schemas: { QrConfig: { properties: { action: { type: 'string', pattern: '(?i)^(pay|details)$', maxLength: 7 } } } } },
    };
    const { document: out, dropped } = normalizePatterns(invalid, 'test/fixtures/realworld/x/openapi.json');
    expect(out.components.schemas.QrConfig.properties.action).toEqual({ type: 'string', maxLength: 7 });
    expect(invalid.components.schemas.QrConfig.properties.action.pattern).toBe('(?i)^(pay|details)$');
    expect(dropped).toEqual([
      {
        pointer: '#/components/schemas/QrConfig/properties/action/pattern',
        pattern: '(?i)^(pay|details)$',
        problem: expect.stringMatching(
          /^pattern "\(\?i\)\^\(pay\|details\)\$" is not an ECMA-262 regular expression, with or without the u flag \(Invalid regular expression/,
        ),
        fix: expect.stringMatching(/inline flags such as \(\?i\)/),
      },
    ]);
  });

  it('refuses a patternProperties key that is no regular expression (leaving it out would change the object), naming the pointer', () => {
    const invalid = { components: { schemas: { Map: { type: 'object', patternProperties: { '(?i)^x-': { type: 'string' } } } } } };
    let refusal: unknown;
    try {
      normalizePatterns(invalid, 'spec.json');
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(UnsupportedSpecError);
    expect(refusal).toMatchObject({ file: 'spec.json', pointer: '#/components/schemas/Map/patternProperties/(?i)^x-' });
    expect((refusal as Error).message).toMatch(/Fix: .*inline flags such as \(\?i\)/);
  });

  it('names the fix of a class range written for another engine (PayPal customer_partner_referrals_v2)', () => {
    const invalid = { components: { schemas: { Id: { type: 'string', pattern: '^[0-9A-Za-z_-.]+$' } } } };
    const [dropped] = normalizePatterns(invalid, 'spec.json').dropped;
    expect(dropped?.problem).toMatch(/Range out of order/);
    expect(dropped?.fix).toMatch(/escape it as \\- or put it last/);
  });
});
