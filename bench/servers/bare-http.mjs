// @ts-check
/** Plain JavaScript so the server runs on bare `node`, as in production (tsx would add ~30 MB RSS and loader hooks). */
/** Baseline 2: bare `node:http` answering every request with the Order envelope (JSON.stringify per request). */
import { createServer } from 'node:http';

const order = JSON.parse(process.env['BENCH_BODY'] ?? '{}');
createServer((_req, res) => {
  const body = JSON.stringify(order);
  res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}).listen(Number(process.env['PORT']), '127.0.0.1', () => console.log('LISTENING'));
process.on('SIGTERM', () => process.exit(0)); // lets --cpu-prof write its profile
