/**
 * Safe to point at anything (D273 contract checker sends only reserved hosts): the reserved-host predicate and the rewriting of what the checker sends, and the
 * repository's own rule: every example in openapi/ (OpenAPI and AsyncAPI) names only reserved hosts, or the API's own
 * (`servers`). (That every URL a run sends is reserved is test/contract/spec-check.test.ts, on Paygate's spec.)
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { apiDocument } from '@paygate/contract';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { hostsIn, isReservedHost, safeString, unreservedHosts } from './safety.js';

const ROOT = path.resolve(import.meta.dirname, '../../../..');

/** Every value under an `example` or `examples` key, with its JSON pointer. */
function examples(node: unknown, at: string, out: [string, unknown][] = []): [string, unknown][] {
  if (Array.isArray(node)) node.forEach((v, i) => examples(v, `${at}/${i}`, out));
  else if (typeof node === 'object' && node !== null)
    for (const [k, v] of Object.entries(node)) {
      if (k === 'example' || k === 'examples') out.push([`${at}/${k}`, v]);
      else examples(v, `${at}/${k}`, out);
    }
  return out;
}

describe('reserved hosts (D273)', () => {
  it.each([
    ['shop.example', true],
    ['hooks.paygate-contract.invalid', true],
    ['example.com', true],
    ['api.example.org', true],
    ['localhost', true],
    ['127.0.0.1', true],
    ['x.test', true],
    ['shop.example.in', false],
    ['example.in', false],
    ['acme.com', false],
    ['examples.com', false],
  ] as const)('%s reserved: %s', (host, reserved) => {
    expect(isReservedHost(host)).toBe(reserved);
  });

  it.each([
    ['a URL on a real domain', 'https://shop.example.in/hooks?x=1', 'https://paygate-contract.invalid/hooks?x=1'],
    ['a reserved but resolvable one (example.com answers)', 'https://example.com/a', 'https://paygate-contract.invalid/a'],
    ['an unresolvable reserved one is kept', 'https://shop.example/return', 'https://shop.example/return'],
    ['the target itself is kept', 'https://api.acme.com/v1/x', 'https://api.acme.com/v1/x'],
    ['an e-mail address', 'priya@example.in', 'priya@example.com'],
    ['text around them', 'see http://acme.com/x or mail a@b.co', 'see https://paygate-contract.invalid/x or mail a@example.com'],
  ] as const)('rewrites %s', (_name, input, output) => {
    expect(safeString(input, new Set(['api.acme.com']))).toBe(output);
  });

  it('every example in openapi/ names reserved hosts only (or the API’s own servers)', () => {
    const asyncapi = parse(readFileSync(path.join(ROOT, 'openapi/asyncapi.yaml'), 'utf8')) as unknown;
    const servers = new Set(
      ((apiDocument as { servers?: { url: string }[] }).servers ?? []).map((s) => new URL(s.url).hostname.toLowerCase()),
    );
    const found = [...examples(apiDocument, '#'), ...examples(asyncapi, 'asyncapi.yaml#')].flatMap(([at, value]) =>
      unreservedHosts(JSON.stringify(value), servers).map((h) => `${at}: ${h}`),
    );
    expect(found).toEqual([]);
    // the rule has something to check: the examples do carry URLs and e-mail addresses
    expect(examples(apiDocument, '#').flatMap(([, v]) => hostsIn(JSON.stringify(v))).length).toBeGreaterThan(20);
  });
});
