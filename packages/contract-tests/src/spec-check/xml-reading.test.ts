/** The probe's reading of XML bodies (D458 error answers in binary, image and XML media types): one case per rule of OpenAPI's XML Object. */
import { describe, expect, it } from 'vitest';
import { isObj } from '@paygate/contract/json';
import { parseXml, readXml } from './xml-reading.js';

type Json = Parameters<typeof readXml>[1];
const schemas: Record<string, Json> = { Item: { type: 'object', properties: { field: { type: 'string' }, code: { type: 'integer' } } } };
const deref = (node: Json | undefined): Json | undefined =>
  isObj(node) && typeof node['$ref'] === 'string' ? schemas[node['$ref'].split('/').pop() ?? ''] : node;

describe('readXml', () => {
  it.each([
    {
      name: 'elements by property name, scalars typed by the schema, entities decoded',
      schema: { type: 'object', properties: { code: { type: 'integer' }, ok: { type: 'boolean' }, message: { type: 'string' } } },
      xml: '<?xml version="1.0"?><error><code>400</code><ok>false</ok><message>a &lt;= b &#38; c</message></error>',
      value: { code: 400, ok: false, message: 'a <= b & c' },
    },
    {
      name: 'an attribute and a renamed element, prefixes ignored',
      schema: {
        type: 'object',
        properties: { version: { type: 'string', xml: { attribute: true } }, detail: { type: 'string', xml: { name: 'Detail' } } },
      },
      xml: '<p:VAST xmlns:p="urn:x" version="1.0"><p:Detail>x</p:Detail></p:VAST>',
      value: { version: '1.0', detail: 'x' },
    },
    {
      name: 'an unwrapped list by its items name, a wrapped one inside its element',
      schema: {
        type: 'object',
        properties: {
          error: { type: 'array', items: { type: 'string', xml: { name: 'Error' } } },
          items: { type: 'array', xml: { wrapped: true }, items: { $ref: '#/Item' } },
        },
      },
      xml: '<r><Error>a</Error><Error>b</Error><items><Item><field>f</field><code>1</code></Item><Item/></items></r>',
      value: { error: ['a', 'b'], items: [{ field: 'f', code: 1 }, {}] },
    },
    {
      name: 'undeclared children kept by name: text, objects, repeated as lists; CDATA as text',
      schema: { type: 'object' },
      xml: '<r><code>c</code><details><limit><![CDATA[<= 100]]></limit></details><x>1</x><x>2</x></r>',
      value: { code: 'c', details: { limit: '<= 100' }, x: ['1', '2'] },
    },
  ])('$name', ({ schema, xml, value }) => {
    expect(readXml(xml, schema as unknown as Json, deref)).toEqual(value);
  });

  it.each([
    ['not closed', '<a><b></b>'],
    ['mismatched', '<a></b>'],
    ['two roots', '<a/><b/>'],
    ['text outside', 'x<a/>'],
    ['no element', '{"a":1}'],
  ])('refuses a document %s', (_name, xml) => {
    expect(() => parseXml(xml)).toThrow();
  });
});
