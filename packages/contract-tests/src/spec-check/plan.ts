/**
 * `--dry-run` (D273 contract checker sends only reserved hosts): the plan of a run without a request sent: operations in the order they would run, the credential
 * set each would use, where each path parameter would come from (the operations whose answers carry it, or the spec's
 * example when none does), the checks, and the host invented URLs point at.
 */
import { planOrder, staticProducers } from './operation-order.js';
import { ALL_CHECKS, type CheckApiOptions } from './types.js';
import { included, setsFor } from './credentials.js';
import { makeResolver, readOperations, upgradeNullable } from './document.js';
import { inputKey } from './pool.js';
import { RESERVED_MAIL_DOMAIN, RESERVED_URL_HOST } from './safety.js';
import type { Json, JsonObject } from './samples.js';

export function planChecks(
  options: Pick<CheckApiOptions, 'document' | 'baseUrl' | 'credentials' | 'auth' | 'rules' | 'include' | 'exclude' | 'checks' | 'tenants'>,
): string {
  const doc = upgradeNullable(options.document as Json) as JsonObject;
  const r = makeResolver(doc);
  const all = readOperations(doc, r);
  const operations = all.filter((op) => included(op, options.include ?? [], options.exclude ?? []));
  const sets = [...(options.credentials ?? [])];
  if (options.auth !== undefined && Object.keys(options.auth).length > 0) sets.unshift({ name: 'default', auth: options.auth });
  const producers = staticProducers(all, r);
  const lines = [
    `Plan for ${options.baseUrl} (dry run: nothing is sent). ${operations.length} of ${all.length} operations; credential sets: ${sets.map((s) => `${s.name} (${Object.keys(s.auth).join(', ')})`).join('; ') || 'none'}${options.tenants?.length ? `; tenants: ${options.tenants.join(', ')}` : ''}.`,
    `Checks: ${(options.checks ?? ALL_CHECKS).join(', ')}. Invented URLs point at https://${RESERVED_URL_HOST}/..., e-mail addresses at @${RESERVED_MAIL_DOMAIN} (RFC 2606/6761); requests go to ${new URL(options.baseUrl).host} only.`,
    '',
  ];
  planOrder(operations, r).forEach((op, i) => {
    const set = setsFor(op, sets, options.rules ?? [], new Map())[0];
    const secured = op.security.length > 0 && !op.security.some((alt) => alt.length === 0);
    const inputs = op.params
      .filter((p) => p.in === 'path')
      .map((p) => {
        const key = inputKey(p.name);
        // what makes it: not an operation that needs it itself
        const from = (producers.get(key) ?? []).filter(
          (o) =>
            !o.params.some((q) => q.in === 'path' && inputKey(q.name) === key) && included(o, options.include ?? [], options.exclude ?? []),
        );
        return `${p.name} <- ${from.length > 0 ? from.map((o) => o.operationId).join(' | ') : 'the spec example (nothing makes it)'}`;
      });
    lines.push(
      `${String(i + 1).padStart(3)}. ${op.operationId}  ${op.method.toUpperCase()} ${op.path}  ${secured ? `as ${set?.name ?? 'NO CREDENTIALS'}` : 'public'}${inputs.length > 0 ? `  (${inputs.join('; ')})` : ''}`,
    );
  });
  return lines.join('\n');
}
