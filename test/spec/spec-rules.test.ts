import { bundle, loadConfig } from '@redocly/openapi-core';
import { beforeAll, describe, expect, it } from 'vitest';

/**
 * The project's ground rules for the contract, checked over the dereferenced document: every input is bounded
 * (strings maxLength, arrays maxItems, numbers minimum and maximum, objects closed), every operation declares 401, 429
 * and 500 beside its own errors, and servers are https.
 */
type Schema = Record<string, unknown> & {
  type?: string | string[];
  properties?: Record<string, Schema>;
  items?: Schema;
  oneOf?: Schema[];
  anyOf?: Schema[];
  allOf?: Schema[];
  additionalProperties?: boolean | Schema;
};
type Operation = {
  operationId: string;
  security?: unknown[];
  parameters?: Array<{ name: string; in: string; schema: Schema }>;
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, unknown>;
};

let doc: { servers: Array<{ url: string }>; paths: Record<string, Record<string, Operation>> };
beforeAll(async () => {
  const config = await loadConfig({ configPath: 'openapi/redocly.yaml' });
  doc = (await bundle({ ref: 'openapi/openapi.yaml', config, dereference: true })).bundle.parsed as typeof doc;
});

const operations = () =>
  Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ path, method, op })));

function types(s: Schema): string[] {
  return Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];
}

/** Every unbounded spot of an input schema, as `where: what is missing`. */
function unbounded(s: Schema, where: string, out: string[]): string[] {
  for (const branch of [...(s.oneOf ?? []), ...(s.anyOf ?? []), ...(s.allOf ?? [])]) unbounded(branch, where, out);
  const t = types(s);
  const fixed = s.enum !== undefined || s.const !== undefined;
  if (t.includes('string') && !fixed && s.maxLength === undefined && s.format !== 'binary') out.push(`${where}: string without maxLength`);
  if ((t.includes('integer') || t.includes('number')) && !fixed && (s.minimum === undefined || s.maximum === undefined))
    out.push(`${where}: number without minimum and maximum`);
  if (t.includes('array')) {
    if (s.maxItems === undefined) out.push(`${where}: array without maxItems`);
    if (s.items) unbounded(s.items, `${where}[]`, out);
  }
  if (t.includes('object') || s.properties) {
    if (s.additionalProperties !== false && s.oneOf === undefined) out.push(`${where}: object not closed (additionalProperties: false)`);
    for (const [name, child] of Object.entries(s.properties ?? {})) unbounded(child, `${where}.${name}`, out);
  }
  return out;
}

describe('spec ground rules', () => {
  it('bounds every input: parameters and request bodies', () => {
    const problems: string[] = [];
    for (const { path, method, op } of operations()) {
      for (const p of op.parameters ?? []) unbounded(p.schema, `${method.toUpperCase()} ${path} ${p.in} ${p.name}`, problems);
      for (const [media, { schema }] of Object.entries(op.requestBody?.content ?? {}))
        unbounded(schema, `${method.toUpperCase()} ${path} ${media} body`, problems);
    }
    expect(problems).toEqual([]);
  });

  it('declares 401, 429 and 500 on every operation (401 only where there is a credential to refuse)', () => {
    for (const { path, method, op } of operations()) {
      const statuses = Object.keys(op.responses);
      expect(statuses, `${method} ${path}`).toEqual(expect.arrayContaining(['429', '500']));
      // The SDK script is a public static asset: no credential, no session, so nothing can answer 401.
      if (op.operationId !== 'getCheckoutSdk') expect(statuses, `${method} ${path}`).toContain('401');
    }
  });

  it('serves only over https', () => {
    expect(doc.servers.length).toBeGreaterThan(0);
    for (const server of doc.servers) expect(server.url).toMatch(/^https:\/\//);
  });
});

describe('examples', () => {
  it('signs the return-URL callback examples with the example encryption key, per the hash rule', async () => {
    const { verifyCallback } = await import('../../packages/client/src/runtime/callback.js');
    const credentials = doc.paths['/partners/merchants/{merchant_id}/credentials']!['post']!.responses['201'] as {
      content: { 'application/json': { example: { data: { encryption_key: string } } } };
    };
    const key = credentials.content['application/json'].example.data.encryption_key;
    const order = doc.paths['/pg/orders/']!['post'] as unknown as {
      callbacks: Record<
        string,
        Record<string, { post: { requestBody: { content: Record<string, { example: Record<string, string> }> } } }>
      >;
    };
    const callback = Object.values(order.callbacks['returnUrl']!)[0]!.post.requestBody.content['application/x-www-form-urlencoded']!
      .example;
    expect(verifyCallback(callback, key)).toBe(true);
    const sandbox = doc.paths['/sandbox/checkout/{session_id}/complete']!['post']!.responses['200'] as {
      content: { 'application/json': { example: { data: { redirect: { fields: Record<string, string> } } } } };
    };
    expect(verifyCallback(sandbox.content['application/json'].example.data.redirect.fields, key)).toBe(true);
  });
});
