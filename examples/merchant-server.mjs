#!/usr/bin/env node
// A minimal merchant backend for trying the sandbox by hand (see README, "Walkthrough"). It receives the two things
// Paygate sends a merchant and verifies both before trusting them:
//   POST /return    the return-URL callback the customer's browser posts after checkout (hash: MERCHANT_ENCRYPTION_KEY)
//   POST /webhooks  webhook events (Standard Webhooks signature: WEBHOOK_SECRET)
// Run after `npm start` has built the packages:  MERCHANT_ENCRYPTION_KEY=ek_... WEBHOOK_SECRET=whsec_... node examples/merchant-server.mjs
import { createServer } from 'node:http';
import { verifyCallback } from '@paygate/client';
import { Webhook } from '@paygate/webhooks';

const port = Number(process.env.MERCHANT_PORT ?? 4000);
const encryptionKey = process.env.MERCHANT_ENCRYPTION_KEY;
const webhookSecret = process.env.WEBHOOK_SECRET;

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

createServer(async (req, res) => {
  const body = await readBody(req);
  if (req.method === 'POST' && req.url === '/return') {
    const fields = new URLSearchParams(body);
    const authentic = encryptionKey ? verifyCallback(fields, encryptionKey) : false;
    console.log(`[merchant] return-URL callback: hash ${authentic ? 'VERIFIED' : 'REJECTED'}`, Object.fromEntries(fields));
    res.writeHead(authentic ? 200 : 400, { 'content-type': 'text/html; charset=utf-8' });
    // a phone-sized page: the shopper arrives here from the hosted checkout, often on a phone
    const page = (title, body) =>
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title}</title></head><body>${body}</body></html>`;
    const escape = (s) => String(s ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
    res.end(
      authentic
        ? page(
            'Thanks',
            `<h1>Thanks!</h1><p>Order ${escape(fields.get('order_id'))}: ${escape(fields.get('status'))}. (The backend still reads the order before shipping.)</p>`,
          )
        : page('Callback rejected', '<h1>Callback rejected</h1><p>The hash did not verify.</p>'),
    );
    return;
  }
  if (req.method === 'POST' && req.url === '/webhooks') {
    try {
      const event = new Webhook(webhookSecret ?? '').verify(body, req.headers);
      console.log(`[merchant] webhook ${event.event_type} VERIFIED`, JSON.stringify(event.data));
      res.writeHead(204).end();
    } catch (err) {
      console.log(`[merchant] webhook REJECTED: ${err.message}`);
      res.writeHead(400).end();
    }
    return;
  }
  res.writeHead(404).end();
}).listen(port, '127.0.0.1', () => {
  console.log(`[merchant] listening on http://127.0.0.1:${port} (POST /return, POST /webhooks)`);
  if (!encryptionKey) console.log('[merchant] MERCHANT_ENCRYPTION_KEY is not set: every callback will be rejected');
  if (!webhookSecret) console.log('[merchant] WEBHOOK_SECRET is not set: every webhook will be rejected');
});
