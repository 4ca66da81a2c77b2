/** The XML writing of error bodies (D458 error answers in binary, image and XML media types): OpenAPI's XML Object, one case per rule. */
import { describe, expect, it } from 'vitest';
import { SchemaReader } from './error-fill.js';
import type { ApiDocument } from './types.js';
import { xmlDocument, xmlName } from './xml-body.js';

const document = {
  openapi: '3.1.0',
  info: { title: 'T', version: '1' },
  paths: {},
  components: {
    schemas: {
      ErrorXmlDocument: { type: 'object', properties: { message: { type: 'string' } } },
      Named: { type: 'object', xml: { name: 'Problem' }, properties: { code: { type: 'integer' } } },
    },
  },
} as unknown as ApiDocument;
const reader = new SchemaReader(document);
const DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n';

describe('xmlDocument', () => {
  it.each([
    {
      name: 'an inline schema: the root is `error`, each property an element, text escaped',
      schema: { type: 'object', properties: { code: { type: 'string' }, message: { type: 'string' } } },
      value: { code: 'invalid_request', message: 'limit: must be <= 100 & > 0' },
      xml: '<error><code>invalid_request</code><message>limit: must be &lt;= 100 &amp; &gt; 0</message></error>',
    },
    {
      name: "a $ref: the root is the schema's name under components",
      schema: { $ref: '#/components/schemas/ErrorXmlDocument' },
      value: { message: 'm' },
      xml: '<ErrorXmlDocument><message>m</message></ErrorXmlDocument>',
    },
    {
      name: "the schema's own `xml.name` names the root; numbers as their text",
      schema: { $ref: '#/components/schemas/Named' },
      value: { code: 400 },
      xml: '<Problem><code>400</code></Problem>',
    },
    {
      name: 'an attribute, a prefix and a namespace',
      schema: {
        type: 'object',
        xml: { name: 'fault', prefix: 'p', namespace: 'urn:x' },
        properties: { status: { type: 'integer', xml: { attribute: true } }, detail: { type: 'string', xml: { name: 'Detail' } } },
      },
      value: { status: 401, detail: 'Missing "credentials"' },
      xml: '<p:fault xmlns:p="urn:x" status="401"><Detail>Missing "credentials"</Detail></p:fault>',
    },
    {
      name: 'a list unwrapped (the default): one element per item, named by the items',
      schema: { type: 'object', properties: { errors: { type: 'array', items: { type: 'string', xml: { name: 'error' } } } } },
      value: { errors: ['a', 'b'] },
      xml: '<error><error>a</error><error>b</error></error>',
    },
    {
      name: 'a list wrapped: inside an element of the property name; null left out',
      schema: {
        type: 'object',
        properties: {
          errors: { type: 'array', xml: { wrapped: true }, items: { type: 'object', properties: { field: { type: 'string' } } } },
        },
      },
      value: { errors: [{ field: 'limit' }, { field: null }] },
      xml: '<error><errors><errors><field>limit</field></errors><errors/></errors></error>',
    },
    {
      name: 'an undeclared map (the generic details): its keys as element names, made valid',
      schema: { type: 'object' },
      value: { details: { 'items[0].name': 'too long', '1st': 'x' } },
      xml: '<error><details><items_0_.name>too long</items_0_.name><_1st>x</_1st></details></error>',
    },
  ])('$name', ({ schema, value, xml }) => {
    expect(xmlDocument(reader, schema, value)).toBe(DECLARATION + xml);
  });

  it.each([
    ['code', 'code'],
    ['items[0]', 'items_0_'],
    ['9lives', '_9lives'],
    ['a b', 'a_b'],
  ])('xmlName(%s) is %s', (name, expected) => {
    expect(xmlName(name)).toBe(expected);
  });
});
