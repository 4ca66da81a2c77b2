/** Request and response bodies for the benchmarks, read from the spec's own examples (so they stay valid). */
import { apiDocument } from '@paygate/server';

type Node = Record<string, unknown>;

function at(path: readonly string[]): unknown {
  let node: unknown = apiDocument;
  for (const key of path) {
    if (node === null || typeof node !== 'object') throw new Error(`spec has no ${path.join(' > ')}`);
    node = (node as Node)[key];
  }
  if (node === undefined) throw new Error(`spec has no ${path.join(' > ')}`);
  return node;
}

/** The GET /pg/orders/{order_id} 200 example: the Order envelope every baseline server returns (~1.2 KB). */
export function orderEnvelope(): unknown {
  return at(['paths', '/pg/orders/{order_id}', 'get', 'responses', '200', 'content', 'application/json', 'example']);
}

/** POST /partners/merchants/ request example. */
export function createMerchantBody(): Node {
  return at(['paths', '/partners/merchants/', 'post', 'requestBody', 'content', 'application/json', 'example']) as Node;
}

/** POST /pg/orders/ hosted-checkout request example (reference_id to be replaced per request). */
export function createHostedOrderBody(): Node {
  return at(['paths', '/pg/orders/', 'post', 'requestBody', 'content', 'application/json', 'examples', 'hosted', 'value']) as Node;
}
