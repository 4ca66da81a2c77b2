// @ts-check
/**
 * CPU per request of request validation alone, in-process (no HTTP, no Express routing): the route-level validator of
 * three operations called 100,000 times per round, best of 7 rounds. `npm run build` first.
 * Usage: node bench/tools/request-validation-cpu.mjs [repo root, default .]
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
const root = process.argv[2] ?? '.';
const imp = (p) => import(pathToFileURL(path.join(root, p)).href);
const rv = await imp('packages/server/dist/runtime/request-validation.js');
const { requestValidators } = await imp('packages/server/dist/generated/request-validators.gen.js');
let operations;
({ operations } = await imp('packages/contract/dist/generated/operations.gen.js'));
const limits = { fileSize: 5 << 20, files: 1, fields: 20, fieldSize: 65536 };
const op = (id) => operations.find((o) => o.operationId === id);

const cases = [
  ['GET order (path param)', 'getOrder', () => ({ method: 'GET', headers: {}, params: { order_id: 'OD1000000000000001' }, originalUrl: '/pg/orders/OD1000000000000001', query: {}, path: '/pg/orders/OD1000000000000001' })],
  ['GET payments (4 query params)', 'listPayments', () => ({ method: 'GET', headers: {}, params: {}, originalUrl: '/pg/payments/?page=2&page_size=10&status=CAPTURED&mop_type=UPI', query: { page: '2', page_size: '10', status: 'CAPTURED', mop_type: 'UPI' }, path: '/pg/payments/' })],
  ['POST refund (JSON body + header)', 'createRefund', () => ({ method: 'POST', headers: { 'content-type': 'application/json', 'idempotency-key': '3f1c2b8e-7d4a-4e59-9b1f-2a6c8d0e5f71' }, params: {}, originalUrl: '/pg/refunds', query: {}, path: '/pg/refunds', body: { payment_id: 'PR1000000000000001', refund_amount: '10.00' } })],
];
for (const [label, id, make] of cases) {
  const o = op(id);
  const [validate] = rv.createRequestValidator(o, requestValidators[id], { allow: o.method.toUpperCase(), uploadLimits: limits }).slice(-1);
  let failures = 0;
  const next = (e) => { if (e) failures++; };
  const N = 100000;
  let best = Infinity;
  for (let round = 0; round < 7; round++) {
    const reqs = Array.from({ length: N }, make);
    const t = process.cpuUsage();
    for (let i = 0; i < N; i++) validate(reqs[i], {}, next);
    const u = process.cpuUsage(t);
    best = Math.min(best, (u.user + u.system) / N);
  }
  console.log(`${label.padEnd(36)} ${(best * 1000).toFixed(0).padStart(6)} ns CPU/request${failures ? ` (${failures} rejected!)` : ''}`);
}
