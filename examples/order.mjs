#!/usr/bin/env node
// Prints the body of a hosted order (POST /pg/orders/) for the README walkthroughs: examples/order.json with its
// return URL on the example merchant backend's port (MERCHANT_PORT, default 4000, as examples/merchant-server.mjs
// listens), so the browser lands on the backend that is running whatever port it uses, and a reference id of its own.
//   node examples/order.mjs                  the order as examples/order.json has it (UPI only)
//   node examples/order.mjs --every-method   without mop_type: the checkout offers every method (cards, net banking)
import { readFileSync } from 'node:fs';

const order = JSON.parse(readFileSync(new URL('./order.json', import.meta.url), 'utf8'));
const port = Number(process.env.MERCHANT_PORT ?? 4000);
if (!Number.isInteger(port) || port < 1 || port > 65535) {
  console.error(`MERCHANT_PORT must be a port number, got ${JSON.stringify(process.env.MERCHANT_PORT)}`);
  process.exit(2);
}
order.return_url = `http://127.0.0.1:${port}/return`;
order.reference_id = `${order.reference_id}-${Date.now()}`;
if (process.argv.includes('--every-method')) delete order.mop_type;
console.log(JSON.stringify(order));
