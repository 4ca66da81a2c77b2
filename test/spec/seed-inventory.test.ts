import { beforeAll, describe, expect, it } from 'vitest';
import { bundle, loadConfig } from '@redocly/openapi-core';
import { seedEventTimes, seedFields, seedOperations, seedPaymentFilters, type Constraint } from './seed-inventory.js';

type Schema = {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  oneOf?: Schema[];
  anyOf?: Schema[];
  allOf?: Schema[];
  enum?: unknown[];
  pattern?: string;
  format?: string;
  const?: unknown;
};
type Operation = {
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, { content?: Record<string, { schema: Schema }> }>;
  parameters?: Array<{ name: string; in: string; required?: boolean; schema: Schema }>;
  callbacks?: Record<string, Record<string, Record<string, Operation>>>;
};
type Document = { paths: Record<string, Record<string, Operation>>; webhooks: Record<string, Record<string, Operation>> };

let doc: Document;
beforeAll(async () => {
  const config = await loadConfig({ configPath: 'openapi/redocly.yaml' });
  const result = await bundle({ ref: 'openapi/openapi.yaml', config, dereference: true });
  doc = result.bundle.parsed as Document;
});

/** Every variant a value may take: oneOf/anyOf branches (and allOf parts) flattened. */
function variants(schema: Schema): Schema[] {
  const branches = schema.oneOf ?? schema.anyOf;
  if (branches) return branches.flatMap(variants);
  return [schema];
}

function typesOf(schema: Schema): string[] {
  return variants(schema)
    .flatMap((s) => (Array.isArray(s.type) ? s.type : s.type ? [s.type] : []))
    .sort();
}

/** One step into a property, across nullable and oneOf branches; also reports whether the step was required. */
function step(schema: Schema, name: string): { schema: Schema; required: boolean } | undefined {
  for (const variant of variants(schema)) {
    const child = variant.properties?.[name];
    if (child) return { schema: child, required: variant.required?.includes(name) ?? false };
  }
  return undefined;
}

function walk(root: Schema, path: string): { schema: Schema; required: boolean } {
  let current: { schema: Schema; required: boolean } = { schema: root, required: true };
  for (const segment of path.split('.').filter(Boolean)) {
    const isArray = segment.endsWith('[]');
    const name = isArray ? segment.slice(0, -2) : segment;
    const next = name ? step(current.schema, name) : current;
    if (!next) throw new Error(`no property "${name}" (path ${path})`);
    current = next;
    if (isArray) {
      const items = variants(current.schema).find((s) => s.items)?.items;
      if (!items) throw new Error(`"${name}" is not an array (path ${path})`);
      current = { schema: items, required: true };
    }
  }
  return current;
}

/** `METHOD /path request|<status> [prefix]`, `callback METHOD /path <name>` or `webhook <EVENT>`. */
function locateSchema(location: string): Schema {
  const parts = location.split(' ');
  if (parts[0] === 'webhook') {
    const schema = doc.webhooks[parts[1]!]?.post?.requestBody?.content['application/json']?.schema;
    if (!schema) throw new Error(`webhook ${parts[1]} has no JSON body`);
    return schema;
  }
  if (parts[0] === 'callback') {
    const [, method, path, name] = parts as [string, string, string, string];
    const callback = doc.paths[path]?.[method.toLowerCase()]?.callbacks?.[name];
    const operation = callback && Object.values(callback)[0]?.post;
    const schema = operation?.requestBody?.content['application/x-www-form-urlencoded']?.schema;
    if (!schema) throw new Error(`callback ${name} has no form body`);
    return schema;
  }
  const [method, path, where, prefix] = parts as [string, string, string, string | undefined];
  const operation = doc.paths[path]?.[method.toLowerCase()];
  if (!operation) throw new Error(`operation ${method} ${path} is missing`);
  const content = where === 'request' ? operation.requestBody?.content : operation.responses[where]?.content;
  const media = content && (content['application/json'] ?? content['multipart/form-data']);
  if (!media) throw new Error(`${location}: no JSON or multipart body`);
  return prefix ? walk(media.schema, prefix).schema : media.schema;
}

function constraintsOf(schema: Schema): Constraint {
  const all = variants(schema);
  const found: Constraint = {};
  for (const s of all) {
    if (s.enum) found.enum = s.enum.filter((v): v is string => typeof v === 'string');
    if (s.pattern) found.pattern = s.pattern;
    if (s.format) found.format = s.format;
  }
  return found;
}

describe('seed operations', () => {
  it.each(seedOperations)('%s %s exists at exactly the seed path', (method, path) => {
    const operation = doc.paths[path]?.[method.toLowerCase()] as (Operation & { operationId?: string; summary?: string }) | undefined;
    expect(operation, `${method} ${path}`).toBeDefined();
    expect(operation?.operationId).toMatch(/^[a-z][A-Za-z0-9]+$/);
  });

  it('keeps each path exactly as the seed writes it (trailing slash or not)', () => {
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(seedOperations.map(([, p]) => p)));
    expect(doc.paths['/pg/orders/{order_id}/']).toBeUndefined();
    expect(doc.paths['/pg/refunds/']).toBeUndefined();
    expect(doc.paths['/partners/merchants']).toBeUndefined();
  });
});

describe('seed fields', () => {
  it.each(seedFields.map((row) => [`${row[0]} :: ${row[1]}`, row] as const))(
    '%s',
    (_name, [location, field, type, required, constraint]) => {
      const found = walk(locateSchema(location), field);
      expect(typesOf(found.schema).join('|')).toBe(type.split('|').sort().join('|'));
      if (required !== undefined) expect(found.required, `required-ness of ${field}`).toBe(required);
      if (constraint) {
        const actual = constraintsOf(found.schema);
        // Paygate may add values (aliases, decided states); it may never drop one of the seed's.
        if (constraint.enum) expect(actual.enum).toEqual(expect.arrayContaining([...constraint.enum]));
        if (constraint.pattern) expect(actual.pattern).toBe(constraint.pattern);
        if (constraint.format) expect(actual.format).toBe(constraint.format);
      }
    },
  );
});

describe('seed query parameters of the payments list', () => {
  it.each(seedPaymentFilters.map(([name, constraint]) => ({ name, constraint })))('$name', ({ name, constraint }) => {
    const parameter = doc.paths['/pg/payments/']?.get?.parameters?.find((p) => p.name === name && p.in === 'query');
    expect(parameter, name).toBeDefined();
    expect(parameter?.required ?? false).toBe(false);
    if (constraint?.enum) expect(constraintsOf(parameter!.schema).enum).toEqual(expect.arrayContaining([...constraint.enum]));
    if (constraint?.pattern) expect(constraintsOf(parameter!.schema).pattern).toBe(constraint.pattern);
  });
});

describe('webhook event_time formats', () => {
  it.each(Object.entries(seedEventTimes))('%s', (event, [accepted, rejected]) => {
    const pattern = new RegExp(walk(locateSchema(`webhook ${event}`), 'event_time').schema.pattern!);
    expect(accepted).toMatch(pattern);
    expect(rejected).not.toMatch(pattern);
  });
});

describe('security', () => {
  it('requires X-Client-ID and X-Client-Secret together on every API operation', async () => {
    const config = await loadConfig({ configPath: 'openapi/redocly.yaml' });
    const raw = (await bundle({ ref: 'openapi/openapi.yaml', config })).bundle.parsed as {
      security: unknown;
      components: { securitySchemes: Record<string, { type: string; in: string; name: string }> };
      paths: Record<string, Record<string, { security?: unknown[]; tags?: string[] }>>;
    };
    expect(raw.security).toEqual([{ ClientId: [], ClientSecret: [] }]);
    expect(raw.components.securitySchemes.ClientId).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-Client-ID' });
    expect(raw.components.securitySchemes.ClientSecret).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-Client-Secret' });
    for (const [path, item] of Object.entries(raw.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        // Only the browser-facing checkout page and SDK are public (the session id is the page's credential).
        if (operation.tags?.includes('Checkout')) expect(operation.security, `${method} ${path}`).toEqual([]);
        else expect(operation.security, `${method} ${path}`).toBeUndefined();
      }
    }
  });
});
