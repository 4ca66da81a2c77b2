// @ts-check
/** Plain JavaScript so the server runs on bare `node`, as in production. */
/** Baseline 1: bare Express 5, one route, `res.json` of the Order envelope (the same body as the gateway's GET order). */
import express from 'express';

const order = JSON.parse(process.env['BENCH_BODY'] ?? '{}');
const app = express();
app.disable('x-powered-by');
app.get('/pg/orders/:order_id', (_req, res) => {
  res.json(order);
});
app.listen(Number(process.env['PORT']), '127.0.0.1', () => console.log('LISTENING'));
process.on('SIGTERM', () => process.exit(0)); // lets --cpu-prof write its profile
