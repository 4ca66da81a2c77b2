/**
 * How a path template is read for routing (D410 every path template real specs use is routed), table-driven: find-my-way's path, the parameters' names, the
 * conditions a query part or fragment sets and the query bindings.
 */
import { describe, expect, it } from 'vitest';
import { bindKeyParameters, parseRouteTemplate, sentPath, templateQueryKeys, type RouteTemplate } from './route-template.js';

const declared = { query: new Set(['tagKeys', 'uploadId', 'query', 'format']), header: new Set(['x-amz-target']) };

const rows: [string, RouteTemplate][] = [
  ['/pg/orders/{order_id}', { routerPath: '/pg/orders/:p0', names: ['order_id'], conditions: [], queryBindings: [] }],
  ['/v1/projects:search', { routerPath: '/v1/projects::search', names: [], conditions: [], queryBindings: [] }],
  ['/v1/{name}:cancel', { routerPath: '/v1/:p0(.+?)::cancel', names: ['name'], conditions: [], queryBindings: [] }],
  ['/@{lat},{lon}', { routerPath: '/@:p0(.+?),:p1(.+?)', names: ['lat', 'lon'], conditions: [], queryBindings: [] }],
  ["/docs('{key}')", { routerPath: "/docs(':p0(.+?)')", names: ['key'], conditions: [], queryBindings: [] }],
  ['/r/{id}.{format}', { routerPath: '/r/:p0(.+?).:p1(.+?)', names: ['id', 'format'], conditions: [], queryBindings: [] }],
  ['/b/{page}{ext}', { routerPath: '/b/:p0(.+?):p1(.+?)', names: ['page', 'ext'], conditions: [], queryBindings: [] }],
  [
    '/tags/{resourceArn}#tagKeys',
    { routerPath: '/tags/:p0', names: ['resourceArn'], conditions: [{ in: 'query', name: 'tagKeys' }], queryBindings: [] },
  ],
  [
    '/#X-Amz-Target=Svc.Op',
    { routerPath: '/', names: [], conditions: [{ in: 'header', name: 'x-amz-target', value: 'Svc.Op' }], queryBindings: [] },
  ],
  [
    '/2013-01-01/search#format=sdk&pretty=true&q',
    // `pretty` and `q` name no declared parameter here: labels
    { routerPath: '/2013-01-01/search', names: [], conditions: [{ in: 'query', name: 'format', value: 'sdk' }], queryBindings: [] },
  ],
  ['/files/{file_id}#add_shared_link', { routerPath: '/files/:p0', names: ['file_id'], conditions: [], queryBindings: [] }],
  [
    '/search/articles?query={query}',
    { routerPath: '/search/articles', names: [], conditions: [{ in: 'query', name: 'query' }], queryBindings: [] },
  ],
  [
    '/rides?page={page}&per_page={per_page}',
    {
      routerPath: '/rides',
      names: [],
      conditions: [
        { in: 'query', name: 'page' },
        { in: 'query', name: 'per_page' },
      ],
      queryBindings: [
        { name: 'page', key: 'page' },
        { name: 'per_page', key: 'per_page' },
      ],
    },
  ],
  ['/items?kind=book', { routerPath: '/items', names: [], conditions: [{ in: 'query', name: 'kind', value: 'book' }], queryBindings: [] }],
  [
    // a parameter written as the key: the key sent with the term's value
    '/numbers/{country}?{search}=1&{search_type}=2',
    {
      routerPath: '/numbers/:p0',
      names: ['country'],
      conditions: [],
      queryBindings: [],
      keyBindings: [
        { name: 'search', value: '1' },
        { name: 'search_type', value: '2' },
      ],
    },
  ],
];

describe('parseRouteTemplate (D410)', () => {
  it.each(rows)('%s', (template, expected) => {
    expect(parseRouteTemplate(template, declared)).toEqual(expected);
  });

  it('a parameter sharing its segment matches the values its schema enumerates (healthcare.gov: {pageName}{mediaTypeExtension})', () => {
    const withEnums = { ...declared, pathEnums: new Map([['ext', ['.json', '.x|y']]]) };
    expect(parseRouteTemplate('/{page}{ext}', withEnums).routerPath).toBe('/:p0(.+?):p1(\\.json|\\.x\\|y)');
    // a whole-segment parameter stays plain: its value is validated, not routed on
    expect(parseRouteTemplate('/{ext}', withEnums).routerPath).toBe('/:p0');
  });

  it('sentPath and templateQueryKeys read the part a client sends and the query part', () => {
    expect(sentPath('/tags/{arn}#tagKeys')).toBe('/tags/{arn}');
    expect(sentPath('/rides?page={page}#x')).toBe('/rides');
    expect(templateQueryKeys('/rides?page={page}&per_page={per_page}&kind=book')).toEqual(['page', 'per_page', 'kind']);
    expect(templateQueryKeys('/numbers/{c}?{search}=1')).toEqual([]);
    expect(templateQueryKeys('/tags/{arn}#tagKeys')).toEqual([]);
  });

  it.each<[string, [string, string][], string[], Record<string, string>]>([
    [
      'each term its key, by value',
      [
        ['88', '1'],
        ['1', '2'],
      ],
      [],
      { search: '88', search_type: '1' },
    ],
    [
      'a declared key is never a key parameter',
      [
        ['limit', '1'],
        ['88', '1'],
        ['1', '2'],
      ],
      ['limit'],
      { search: '88', search_type: '1' },
    ],
    [
      'one key per term',
      [
        ['88', '1'],
        ['89', '1'],
      ],
      [],
      { search: '88' },
    ],
    ['no pair with the value: unbound', [['88', '3']], [], {}],
  ])('bindKeyParameters: %s', (_name, pairs, known, expected) => {
    const bindings = parseRouteTemplate('/n/{c}?{search}=1&{search_type}=2', declared).keyBindings ?? [];
    expect(Object.fromEntries(bindKeyParameters(bindings, pairs, new Set(known)))).toEqual(expected);
  });
});
