/** Parameter styles as the runtime reads them (docs/request-validation.md section 5; D456 query objects and arrays of objects serialised). */
import { describe, expect, it } from 'vitest';
import { applyParameterRule, gatherAdditional, type ParameterRule } from './request-validation.js';

type Bag = Record<string, unknown>;

/** The query after the rule, as Express's parser hands it over (repeated keys are arrays). */
function parsed(rule: Omit<ParameterRule, 'in'>, query: Bag, known: string[] = []): Bag {
  const bag = { ...query };
  applyParameterRule({ in: 'query', ...rule }, bag, {}, {}, new Set(known));
  return bag;
}

const tag = (key: string, value: string): string => JSON.stringify({ Key: key, Value: value });

describe('request validation: query parameter styles (D456)', () => {
  it.each<[string, Omit<ParameterRule, 'in'>, Bag, Bag, string[]?]>([
    [
      'exploded array of objects: each item JSON text',
      { name: 'Tags', parse: 'wrap', jsonItems: true },
      { Tags: [tag('a', '1'), tag('b', '2')] },
      {
        Tags: [
          { Key: 'a', Value: '1' },
          { Key: 'b', Value: '2' },
        ],
      },
    ],
    [
      'exploded array of objects, one item',
      { name: 'Tags', parse: 'wrap', jsonItems: true },
      { Tags: tag('a', '1') },
      { Tags: [{ Key: 'a', Value: '1' }] },
    ],
    [
      'an item that is not JSON is kept as sent (validation names it)',
      { name: 'Tags', parse: 'wrap', jsonItems: true },
      { Tags: 'x' },
      { Tags: ['x'] },
    ],
    ['exploded array of strings: items not parsed', { name: 'ids', parse: 'wrap' }, { ids: '{"a":1}' }, { ids: ['{"a":1}'] }],
    [
      'non-exploded array of objects: split outside the JSON texts',
      { name: 'Tags', parse: 'split', delimiter: ',', jsonItems: true },
      { Tags: `${tag('a,b', '1')},${tag('c', '2')}` },
      {
        Tags: [
          { Key: 'a,b', Value: '1' },
          { Key: 'c', Value: '2' },
        ],
      },
    ],
    [
      'deepObject array of objects',
      { name: 'Tags', parse: 'deepArray', jsonItems: true },
      { 'Tags[]': [tag('a', '1'), tag('b', '2')] },
      {
        Tags: [
          { Key: 'a', Value: '1' },
          { Key: 'b', Value: '2' },
        ],
      },
    ],
    [
      'exploded object: primitive, array and object properties',
      {
        name: 'HealthCheck',
        parse: 'formExplode',
        properties: ['Target', 'Ports', 'Tag'],
        arrayProperties: ['Ports'],
        jsonProperties: ['Tag'],
      },
      { Target: 'TCP:80', Ports: '80', Tag: tag('a', '1'), Version: '1' },
      { HealthCheck: { Target: 'TCP:80', Ports: ['80'], Tag: { Key: 'a', Value: '1' } }, Version: '1' },
    ],
    [
      'exploded object: an array property of objects',
      { name: 'Policy', parse: 'formExplode', properties: ['Tags'], arrayProperties: ['Tags'], jsonProperties: ['Tags'] },
      { Tags: [tag('a', '1'), tag('b', '2')] },
      {
        Policy: {
          Tags: [
            { Key: 'a', Value: '1' },
            { Key: 'b', Value: '2' },
          ],
        },
      },
    ],
    [
      'exploded object: a property another parameter declares is read by both, and alone does not make the object present',
      { name: 'LaunchTemplate', parse: 'formExplode', properties: ['LaunchTemplateId', 'Version'] },
      { Version: '2011-01-01' },
      { Version: '2011-01-01' },
      ['Version', 'LaunchTemplate'],
    ],
    [
      'exploded object: a shared property copied when the object is sent',
      { name: 'LaunchTemplate', parse: 'formExplode', properties: ['LaunchTemplateId', 'Version'] },
      { Version: '2011-01-01', LaunchTemplateId: 'lt-1' },
      { Version: '2011-01-01', LaunchTemplate: { LaunchTemplateId: 'lt-1', Version: '2011-01-01' } },
      ['Version', 'LaunchTemplate'],
    ],
    [
      'required exploded object, no key sent: the empty object',
      { name: 'HealthCheck', parse: 'formExplode', properties: ['Target'], emptyObject: true },
      {},
      { HealthCheck: {} },
    ],
    ['optional exploded object, no key sent: absent', { name: 'HealthCheck', parse: 'formExplode', properties: ['Target'] }, {}, {}],
    [
      'deepObject: an object property as JSON text',
      { name: 'filter', parse: 'deepObject', jsonProperties: ['tag'] },
      { 'filter[tag]': tag('a', '1'), 'filter[n]': '2' },
      { filter: { tag: { Key: 'a', Value: '1' }, n: '2' } },
    ],
  ])('%s', (_name, rule, query, expected, known) => {
    expect(parsed(rule, query, known)).toEqual(expected);
  });

  it.each<[string, Bag, Bag]>([
    [
      'undeclared keys become its properties',
      { Action: 'Publish', 'Attributes.a': 'x', b: 'y' },
      { Action: 'Publish', Attributes: { 'Attributes.a': 'x', b: 'y' } },
    ],
    ['nothing undeclared: left as the rule made it', { Action: 'Publish' }, { Action: 'Publish' }],
    ['added to the object the rule made', { Action: 'Publish', Attributes: {}, b: 'y' }, { Action: 'Publish', Attributes: { b: 'y' } }],
  ])('a free-form exploded object: %s', (_name, query, expected) => {
    const bag = { ...query };
    gatherAdditional({ name: 'Attributes', in: 'query', parse: 'formExplode', additional: true }, bag, new Set(['Action', 'Attributes']));
    expect(bag).toEqual(expected);
  });
});
