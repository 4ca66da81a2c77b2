/**
 * D444: Paygate's media-type examples rule reports what Redocly's `no-invalid-media-type-examples` reports, in the same
 * order and places, on a first lint and on a lint after an edit that reuses the kept validators (D444 media-type examples checked by a Paygate rule with validators kept across runs; D446 one Ajv kept across lints for the example schemas that use `$ref`); a
 * validator whose schema (or a schema it reaches) changed is compiled again; a schema Ajv cannot compile is reported
 * on every lint.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { BaseResolver, createConfig, lintDocument, makeDocumentFromString, type NormalizedProblem } from '@redocly/openapi-core';
import { describe, expect, it } from 'vitest';
import { defaultLintConfig } from './lint-config.js';
import { ExampleValidators } from './media-type-examples.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** Every field of a problem a reader sees (rule, severity, message, suggestions, each location and where it came from). */
const comparable = (problems: readonly NormalizedProblem[]) =>
  problems.map((p) => ({
    ruleId: p.ruleId,
    severity: p.severity,
    message: p.message,
    suggest: p.suggest,
    location: p.location.map((l) => [l.source.absoluteRef, l.pointer, l.reportOnKey]),
    from: p.from === undefined ? undefined : [p.from.source.absoluteRef, p.from.pointer],
    reference: p.reference,
  }));

async function lintText(text: string, validators?: ExampleValidators) {
  const config = validators === undefined ? await createConfig({ extends: ['minimal'] }) : await defaultLintConfig(validators);
  const document = makeDocumentFromString(text, '/spec/openapi.json');
  validators?.startRun();
  const problems = await lintDocument({ document, config, externalRefResolver: new BaseResolver(config.resolve) });
  validators?.endRun();
  return comparable(problems);
}

/** A document with examples that break their schemas in every way the rule words differently. */
function fixture(openapi: '3.0.3' | '3.1.0', pet: Record<string, unknown>) {
  const json = { 'application/json': {} };
  return {
    openapi,
    info: { title: 'Examples', version: '1' },
    paths: {
      '/pets': {
        post: {
          operationId: 'createPet',
          requestBody: {
            content: {
              'application/json': {
                schema: { $ref: '#/components/schemas/Pet' },
                examples: {
                  good: { value: { name: 'Rex', kind: 'dog' } },
                  extra: { value: { name: 'Rex', kind: 'dog', colour: 'red' } },
                  referenced: { $ref: '#/components/examples/BadKind' },
                },
              },
            },
          },
          responses: {
            '200': {
              description: 'ok',
              content: {
                ...json,
                'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/Pet' } }, example: [{ kind: 3 }] },
              },
            },
            '500': {
              description: 'a schema Ajv cannot compile in 3.0 (nullable without type): reported, every lint',
              content: { 'application/json': { schema: { $ref: '#/components/schemas/Broken' }, example: { kind: 'dog' } } },
            },
            '400': {
              description: 'bad',
              content: { 'application/json': { schema: { type: 'object', required: ['code'] }, example: { message: 'no code' } } },
            },
          },
        },
      },
    },
    components: {
      schemas: {
        Pet: pet,
        Kind: { type: 'string', enum: ['dog', 'cat'] },
        Broken: { nullable: true, properties: { kind: { $ref: '#/components/schemas/Kind' } } },
      },
      examples: { BadKind: { value: { name: 'Tom', kind: 'fish' } } },
    },
  };
}

const PET = {
  type: 'object',
  required: ['name'],
  additionalProperties: false,
  properties: { name: { type: 'string' }, kind: { $ref: '#/components/schemas/Kind' } },
};

describe("Paygate's media-type examples rule (D444)", () => {
  it.each(['3.0.3', '3.1.0'] as const)('reports what Redocly reports (OpenAPI %s), before and after an edit', async (version) => {
    const before = JSON.stringify(fixture(version, PET));
    const validators = new ExampleValidators();
    const expected = await lintText(before);
    expect(expected.filter((p) => p.ruleId === 'no-invalid-media-type-examples').length).toBeGreaterThanOrEqual(4);
    expect(await lintText(before, validators)).toEqual(expected);
    expect(validators.lastRun.reused).toBe(0);

    // a schema every example reaches changes (`Kind` gains `fish`): those validators are compiled again, not reused
    const edited = fixture(version, PET);
    edited.components.schemas.Kind.enum.push('fish');
    const after = JSON.stringify(edited);
    expect(await lintText(after, validators)).toEqual(await lintText(after));
    expect(validators.lastRun.compiled).toBeGreaterThan(0);

    // the 400 response's inline schema did not change: its validator is reused
    expect(validators.lastRun.reused).toBeGreaterThan(0);
    expect(await lintText(after, validators)).toEqual(await lintText(after));
    expect(validators.lastRun.compiled).toBe(0);
    if (version === '3.0.3')
      expect(expected.map((p) => p.message)).toContain('Example validation errored: "nullable" cannot be used without "type".');
  });

  it.each([
    ['PayPal Orders', 'test/fixtures/realworld/paypal-checkout-orders/openapi.json'],
    ['Adyen Checkout', 'test/fixtures/realworld/adyen-checkout/openapi.json'],
  ])('reports what Redocly reports on %s, first and with kept validators after an edit', async (_name, file) => {
    const text = readFileSync(`${ROOT}${file}`, 'utf8');
    const validators = new ExampleValidators();
    expect(await lintText(text, validators)).toEqual(await lintText(text));
    const document = JSON.parse(text) as {
      components: { schemas: Record<string, { properties?: Record<string, unknown>; required?: string[] }> };
    };
    const [name] = Object.keys(document.components.schemas)
      .filter((n) => document.components.schemas[n]!.properties !== undefined)
      .sort();
    const schema = document.components.schemas[name!]!;
    schema.properties!['added'] = { type: 'string' };
    schema.required = [...(schema.required ?? []), 'added'];
    const edited = JSON.stringify(document);
    expect(await lintText(edited, validators)).toEqual(await lintText(edited));
  });
});
