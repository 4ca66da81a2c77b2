/**
 * A merchant's website for the browser end-to-end tests, on 127.0.0.1: its backend creates the order with the typed
 * client (merchant credentials, return_url pointing back here), its page loads the checkout SDK from the gateway and
 * starts checkout on a click, and its return_url route records the POSTed callback form.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHostedOrder, type MerchantAccess } from '../faults/helpers/api.js';

export interface ReceivedCallback {
  /** Content-Type the browser sent. */
  contentType: string;
  /** The form as posted (URLSearchParams keeps repeated fields visible to verifyCallback). */
  form: URLSearchParams;
}

export interface ShopOrder {
  orderId: string;
  sessionId: string;
}

export interface MerchantSite {
  baseUrl: string;
  returnUrl: string;
  /** Orders created by the shop backend, in order. */
  orders: ShopOrder[];
  /** Callbacks received on return_url, in order. */
  callbacks: ReceivedCallback[];
  close(): Promise<void>;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function page(title: string, body: string, head = ''): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>${head}</head><body>${body}</body></html>`;
}

/**
 * GET /shop?amount=12.34&option=paymentSessionId|sessionId: creates an order, renders the checkout button.
 * POST /return: records the callback and shows a receipt.
 */
export async function startMerchantSite(gatewayUrl: string, merchant: MerchantAccess): Promise<MerchantSite> {
  const orders: ShopOrder[] = [];
  const callbacks: ReceivedCallback[] = [];
  let baseUrl = '';

  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', baseUrl);
    const send = (status: number, html: string): void => {
      res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(html);
    };
    const handle = async (): Promise<void> => {
      if (req.method === 'GET' && url.pathname === '/shop') {
        const amount = url.searchParams.get('amount') ?? '499.00';
        const option = url.searchParams.get('option') === 'sessionId' ? 'sessionId' : 'paymentSessionId';
        const order = await createHostedOrder(merchant, { amount, return_url: `${baseUrl}/return` });
        orders.push(order);
        const start = `Paygate({ mode: 'sandbox' }).checkout({ ${option}: ${JSON.stringify(order.sessionId)} })`;
        send(
          200,
          page(
            'Cane Corner: checkout',
            [
              '<h1>Cane Corner</h1>',
              `<p>Large cane basket, INR <span id="amount">${escapeHtml(amount)}</span></p>`,
              `<p>Order <span id="order-id">${escapeHtml(order.orderId)}</span></p>`,
              '<button id="pay-now" type="button">Pay with Paygate</button>',
              `<script>document.getElementById('pay-now').addEventListener('click', function () { ${start}.catch(function (e) { document.title = 'checkout error: ' + e.message; }); });</script>`,
            ].join('\n'),
            `<script src="${escapeHtml(gatewayUrl)}/sdk/checkout.js"></script>`,
          ),
        );
        return;
      }
      if (req.method === 'POST' && url.pathname === '/return') {
        const form = new URLSearchParams(await readBody(req));
        callbacks.push({ contentType: String(req.headers['content-type'] ?? ''), form });
        send(
          200,
          page(
            'Cane Corner: thank you',
            `<h1>Thank you</h1><p>Payment status: <strong id="status">${escapeHtml(form.get('status') ?? '')}</strong></p>` +
              `<p>Order <span id="order-id">${escapeHtml(form.get('order_id') ?? '')}</span></p>`,
          ),
        );
        return;
      }
      if (url.pathname === '/favicon.ico') {
        res.writeHead(204).end();
        return;
      }
      send(404, page('Not found', '<h1>Not found</h1>'));
    };
    handle().catch((err: unknown) => send(500, page('Error', `<pre>${escapeHtml(String(err))}</pre>`)));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    baseUrl,
    returnUrl: `${baseUrl}/return`,
    orders,
    callbacks,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
