/**
 * The light reference in real Chromium (D385-D391), under the gateway's Content-Security-Policy:
 * - every operation page shows its curl and TypeScript samples, and each Copy button puts that sample on the clipboard;
 * - the search box on every page finds an operation, an error code and an event;
 * - a deep link to an operation shows its content at 390 px with the CPU throttled 4x, Redoc's deep link measured
 *   beside it in the same run (the times are recorded in test-results/e2e/docs-deep-link.json, never asserted: the
 *   machine is shared; `npm run bench` owns the goal);
 * - the diagrams render (every state machine and the delivery timeline, with size on screen);
 * - try-it, on the sandbox's own docs, shows a 200 and a 4xx with the schema check, and stays hidden on a static host;
 * - axe finds nothing on the new pages (docs.test.ts checks every page's layout and axe at both sizes);
 * - a spec that is not Paygate's (the Shelf fixture) gets the same samples and search, and no try-it without a sandbox.
 *
 * Chromium: CHROMIUM_PATH or /usr/bin/chromium. Missing => fail when REQUIRE_BROWSER=1, else skip with a loud message.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import express from 'express';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOCS_CSP } from '../../packages/reference/src/app.js';
import { createHostedOrder, clientFor, onboardMerchant, type MerchantAccess } from '../faults/helpers/api.js';
import { docsSiteOnce } from '../support/docs-site.js';
import { startGateway, type Gateway } from '../support/gateway.js';
import { isBrowserAvailable, launchChromium } from './browser.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const RESULTS = path.join(ROOT, 'test-results/e2e');
const run = promisify(execFile);
const browserAvailable = isBrowserAvailable('BROWSER DOCS REFERENCE TEST');
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const PHONE = { width: 390, height: 844 } as const;
const DESKTOP = { width: 1280, height: 900 } as const;

/** Builds the site of a spec into a new temporary directory (the real `npm run docs` path). */
async function buildSite(args: string[] = []): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'paygate-docs-ref-'));
  await run(path.join(ROOT, 'node_modules/.bin/tsx'), ['scripts/docs.ts', '--out', dir, ...args], { cwd: ROOT, timeout: 300_000 });
  return dir;
}

/** The site on a plain static host (no gateway, no /healthz), under the docs' CSP: what `paygate docs` output on any web server is. */
async function staticHost(dir: string): Promise<{ url: string; close(): Promise<void> }> {
  const app = express();
  app.use((_req, res, next) => {
    res.set('Content-Security-Policy', DOCS_CSP);
    next();
  });
  app.use('/docs', express.static(dir));
  const server: Server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/docs`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

interface Watched {
  page: Page;
  context: BrowserContext;
  /** Console errors, page errors and CSP violations so far. */
  problems(): Promise<string[]>;
}

async function open(browser: Browser, viewport: { width: number; height: number }, origin?: string): Promise<Watched> {
  const context = await browser.newContext({ viewport });
  if (origin !== undefined) await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(err.message));
  page.on('console', (msg) => {
    if (msg.type() === 'error') errors.push(`${msg.text()} ${msg.location().url}`);
  });
  await page.addInitScript(() => {
    const w = window as unknown as { __csp: string[] };
    w.__csp = [];
    document.addEventListener('securitypolicyviolation', (e) => w.__csp.push(`${e.effectiveDirective} ${e.blockedURI}`));
  });
  return {
    page,
    context,
    problems: async () => [...errors, ...(await page.evaluate(() => (window as unknown as { __csp: string[] }).__csp))],
  };
}

async function axe(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    type AxeRun = { violations: { id: string; impact: string | null; nodes: unknown[] }[] };
    const axe = (window as unknown as { axe: { run(context: Document): Promise<AxeRun> } }).axe; // why: a global the injected script defines
    return (await axe.run(document)).violations.map((v) => `${v.id} [${v.impact ?? '?'}] (${v.nodes.length})`);
  });
}

/** Types a query into the page's search box and returns the results as "Kind title" lines. */
async function search(page: Page, query: string): Promise<string[]> {
  const box = page.locator('#site-search');
  await box.fill(query);
  const results = page.locator('#site-search-results li a');
  await results.first().waitFor();
  return results.evaluateAll((links) => links.map((a) => (a.textContent ?? '').replace(/\s+/g, ' ').trim()));
}

describe.skipIf(!browserAvailable)("the docs' light reference in Chromium", () => {
  let site: string;
  let gw: Gateway;
  let browser: Browser;
  let merchant: MerchantAccess;
  let operations: string[];

  beforeAll(async () => {
    mkdirSync(RESULTS, { recursive: true });
    site = await docsSiteOnce(); // the default site, shared with the other docs file of the run (read only)
    gw = await startGateway({ target: 'pglite', docsDir: site });
    merchant = await onboardMerchant(gw.baseUrl, clientFor(gw.baseUrl, gw.partner), 'Docs Reader');
    browser = await launchChromium();
    const list = readFileSync(path.join(site, 'operations.html'), 'utf8');
    operations = [...list.matchAll(/href="(operation-[^"]+\.html)"/g)].map((m) => m[1]!);
  }, 420_000);

  afterAll(async () => {
    await browser?.close();
    await gw?.close();
  });

  it('every operation page shows a curl and a TypeScript sample, and each Copy button copies its sample', async () => {
    expect(operations.length).toBeGreaterThan(30);
    const w = await open(browser, DESKTOP, gw.baseUrl);
    try {
      for (const file of operations) {
        await w.page.goto(`${gw.baseUrl}/docs/${file}`);
        // try-it is on (a sandbox): wait for it, it rewrites the samples with this gateway's address
        await w.page.locator('#try-it').waitFor({ state: 'visible' });
        const samples = w.page.locator('figure.sample');
        expect(await samples.locator('figcaption > span').allTextContents(), file).toEqual(['curl', '@paygate/client']);
        for (let i = 0; i < 2; i++) {
          const code = (await samples.nth(i).locator('code').textContent()) ?? '';
          // on the sandbox's own docs the samples name this gateway's address (try-it fills it in)
          expect(code, file).toMatch(
            i === 0 ? /^curl -X [A-Z]+ "http:\/\/127\.0\.0\.1:\d+\// : /^import \{ createPaygateClient \} from "@paygate\/client";$/m,
          );
          const button = samples.nth(i).locator('button.copy');
          expect(await button.getAttribute('type')).toBe('button');
          await samples
            .nth(i)
            .getByRole('button', { name: new RegExp(`^Copy the ${i === 0 ? 'curl' : '@paygate/client'} sample$`) })
            .click();
          await expect.poll(() => w.page.evaluate(() => navigator.clipboard.readText()), { timeout: 10_000 }).toBe(code);
          await button.filter({ hasText: 'Copied' }).waitFor();
        }
      }
      expect(await w.problems()).toEqual([]);
    } finally {
      await w.context.close();
    }
  }, 600_000);

  it('the search box finds an operation, an error code and an event, from any page', async () => {
    const w = await open(browser, PHONE);
    try {
      await w.page.goto(`${gw.baseUrl}/docs/errors.html`);
      expect((await search(w.page, 'create refund'))[0]).toBe('Operation Create a refund (POST /pg/refunds)');
      expect(await search(w.page, 'ERR_IDEMPOTENCY_409')).toContain('Error code ERR_IDEMPOTENCY_409 (409)');
      await w.page.goto(`${gw.baseUrl}/docs/operation-getOrder.html`);
      expect((await search(w.page, 'PAYMENT_CAPTURED'))[0]).toBe('Event PAYMENT_CAPTURED');
      // axe with the results open (Redoc's own page, below, numbers its headings its own way: docs.test.ts)
      expect(await axe(w.page)).toEqual([]);
      // the result leads to the event's section
      await w.page.keyboard.press('Enter');
      await w.page.waitForURL(/events\.html#PAYMENT_CAPTURED$/);
      expect(await w.page.locator('section#PAYMENT_CAPTURED').isVisible()).toBe(true);
      // and from Redoc's page too (the site's header is above it)
      await w.page.goto(`${gw.baseUrl}/docs/index.html`);
      expect((await search(w.page, 'settlement run'))[0]).toMatch(/^Operation .*\(POST \/sandbox\/settlements\/run\)$/);
      expect(await w.problems()).toEqual([]);
    } finally {
      await w.context.close();
    }
  }, 180_000);

  it('a deep link shows its content on a phone with the CPU throttled 4x (time recorded beside Redoc deep link)', async () => {
    const times: Record<string, number> = {};
    for (const [name, url, ready] of [
      [
        'operation page',
        `${gw.baseUrl}/docs/operation-createOrder.html#samples-h`,
        (p: Page) => p.getByRole('heading', { level: 1, name: 'Create an order' }),
      ],
      [
        'Redoc deep link',
        `${gw.baseUrl}/docs/index.html#operation/createOrder`,
        (p: Page) => p.locator('[id="tag/Orders/operation/createOrder"] h2'),
      ],
    ] as const) {
      const w = await open(browser, PHONE);
      try {
        const cdp = await w.context.newCDPSession(w.page);
        await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
        const started = Date.now();
        await w.page.goto(url, { waitUntil: 'commit' });
        await ready(w.page).waitFor({ state: 'visible', timeout: 120_000 });
        times[name] = Date.now() - started;
        // the browser's own clock too (no polling in it): first contentful paint since the navigation started
        const fcp = await w.page.evaluate(() => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? -1);
        times[`${name}, first contentful paint`] = Math.round(fcp);
        // the content is on screen: the heading lies inside the viewport, under the header
        const box = await ready(w.page).boundingBox();
        expect(box, name).not.toBeNull();
        if (name === 'operation page') {
          // nothing floats over the text on a phone: the element at the heading's centre is the heading
          const covered = await w.page.evaluate(() => {
            const h = document.querySelector('h1')!.getBoundingClientRect();
            const at = document.elementFromPoint(h.left + 10, h.top + h.height / 2);
            return at !== null && !document.querySelector('h1')!.contains(at);
          });
          expect(covered).toBe(false);
          await w.page.screenshot({ path: path.join(RESULTS, 'docs-operation-phone.png') });
        }
      } finally {
        await w.context.close();
      }
    }
    writeFileSync(
      path.join(RESULTS, 'docs-deep-link.json'),
      `${JSON.stringify({ viewport: PHONE, cpuThrottling: 4, ms: times }, null, 2)}\n`,
    );
    console.log(`deep link to content at 390 px, CPU 4x slower: ${JSON.stringify(times)}`);
    expect(Object.keys(times)).toHaveLength(4);
  }, 300_000);

  it('the diagrams render: every state machine and the delivery timeline, on screen and described', async () => {
    const w = await open(browser, PHONE);
    try {
      await w.page.goto(`${gw.baseUrl}/docs/diagrams.html`);
      const titles = await w.page.locator('section.diagram h2').allTextContents();
      expect(titles).toEqual(
        expect.arrayContaining(['Order', 'Payment', 'Refund', 'Settlement of a payment', 'Webhook delivery timeline']),
      );
      const svgs = w.page.locator('section.diagram svg[role="img"]');
      expect(await svgs.count()).toBe(titles.length);
      for (const svg of await svgs.all()) {
        const box = await svg.boundingBox();
        expect(box !== null && box.width > 100 && box.height > 50).toBe(true);
        expect(await svg.locator('title').textContent()).toMatch(/\S/);
      }
      // the order's states are drawn as text in the SVG
      const order = w.page.locator('section.diagram', { has: w.page.getByRole('heading', { name: 'Order', exact: true }) });
      for (const state of ['payment_pending', 'payment_successful', 'payment_failed', 'payment_cancelled']) {
        await order.locator('svg text', { hasText: state }).first().waitFor();
      }
      await w.page.screenshot({ path: path.join(RESULTS, 'docs-diagrams-phone.png'), fullPage: true });
      expect(await axe(w.page)).toEqual([]);
      expect(await w.problems()).toEqual([]);
    } finally {
      await w.context.close();
    }
  }, 180_000);

  it("try-it on the sandbox's docs: a 200 and a 4xx, each checked against the declared schema", async () => {
    const { orderId } = await createHostedOrder(merchant);
    const w = await open(browser, PHONE);
    try {
      await w.page.goto(`${gw.baseUrl}/docs/operation-getOrder.html`);
      const form = w.page.locator('#try-it');
      await form.waitFor({ state: 'visible' });
      await w.page.getByLabel('X-Client-ID').fill(merchant.credentials.clientId);
      await w.page.getByLabel('X-Client-Secret').fill(merchant.credentials.clientSecret);
      await w.page.getByLabel(/^order_id/).fill(orderId);
      // the samples now carry this sandbox's address and the reader's credentials (this tab only)
      const curl = (await w.page.locator('figure.sample code').first().textContent()) ?? '';
      expect(curl).toContain(`"${gw.baseUrl}/pg/orders/`);
      expect(curl).toContain(`X-Client-ID: ${merchant.credentials.clientId}"`);
      const typescript = (await w.page.locator('figure.sample code').nth(1).textContent()) ?? '';
      expect(typescript).toContain(`clientSecret: ${JSON.stringify(merchant.credentials.clientSecret)},`);
      expect(typescript).toContain(`baseUrl: ${JSON.stringify(gw.baseUrl)},`);
      await w.page.getByRole('button', { name: 'Send request' }).click();
      await expect.poll(() => w.page.locator('#try-status').textContent()).toMatch(/^200\b/);
      expect(await w.page.locator('#try-response').textContent()).toContain(orderId);
      // checked once the declared document is loaded (openapi.js, only when try-it is used)
      await expect.poll(() => w.page.locator('#try-validation').textContent()).toBe('The body matches the schema declared for 200.');
      expect(await w.page.locator('#try-headers').textContent()).toMatch(/content-type: application\/json/);
      await w.page.screenshot({ path: path.join(RESULTS, 'docs-try-it-200.png'), fullPage: true });

      // the credentials stay for the tab: another operation's form has them already; a made-up id is a declared 404
      await w.page.goto(`${gw.baseUrl}/docs/operation-getRefund.html`);
      await w.page.locator('#try-it').waitFor({ state: 'visible' });
      expect(await w.page.getByLabel('X-Client-ID').inputValue()).toBe(merchant.credentials.clientId);
      await w.page.getByLabel(/^refund_id/).fill('RF0000000000000000');
      await w.page.getByRole('button', { name: 'Send request' }).click();
      await expect.poll(() => w.page.locator('#try-status').textContent()).toMatch(/^4\d\d\b/);
      expect(await w.page.locator('#try-response').textContent()).toContain('"success": false');
      await expect
        .poll(() => w.page.locator('#try-validation').textContent())
        .toMatch(/^The body matches the schema declared for 4\d\d\.$/);
      expect(await axe(w.page)).toEqual([]);
      // Chromium logs the 4xx answer itself as a failed load; nothing else may be reported
      expect((await w.problems()).filter((p) => !/status of 4\d\d/.test(p))).toEqual([]);
    } finally {
      await w.context.close();
    }
  }, 180_000);

  it('the operations and schemas pages are axe clean and reach every operation', async () => {
    const w = await open(browser, DESKTOP);
    try {
      await w.page.goto(`${gw.baseUrl}/docs/operations.html`);
      expect(await w.page.locator('ul.operations a').count()).toBe(operations.length);
      expect(await axe(w.page)).toEqual([]);
      await w.page.goto(`${gw.baseUrl}/docs/schemas.html#schema-OrderStatus`);
      expect(await w.page.locator('#schema-OrderStatus').isVisible()).toBe(true);
      expect(await w.problems()).toEqual([]);
    } finally {
      await w.context.close();
    }
  }, 300_000);

  describe("a spec that is not Paygate's (the Shelf fixture) on a static host", () => {
    let shelf: string;
    let host: { url: string; close(): Promise<void> };

    beforeAll(async () => {
      shelf = await buildSite(['--openapi', 'test/fixtures/shelf/openapi.yaml']);
      host = await staticHost(shelf);
    }, 420_000);

    afterAll(async () => {
      await host?.close();
      if (shelf) await rm(shelf, { recursive: true, force: true });
    });

    it('has samples and search, and no try-it (no sandbox)', async () => {
      const w = await open(browser, PHONE, new URL(host.url).origin);
      try {
        await w.page.goto(`${host.url}/operations.html`);
        const first = (await w.page.locator('ul.operations a').first().getAttribute('href'))!;
        await w.page.goto(`${host.url}/${first}`);
        const samples = w.page.locator('figure.sample');
        expect(await samples.locator('figcaption > span').allTextContents()).toEqual(['curl', 'TypeScript']);
        const ts = (await samples.nth(1).locator('code').textContent()) ?? '';
        expect(ts).toContain('import { createShelfClient } from "./client/client.gen.js";');
        await samples.nth(1).getByRole('button').click();
        await expect.poll(() => w.page.evaluate(() => navigator.clipboard.readText())).toBe(ts);
        // try-it asked /healthz, found no sandbox and stayed hidden
        await w.page.waitForLoadState('networkidle');
        expect(await w.page.locator('#try-it').isHidden()).toBe(true);
        expect(await search(w.page, 'list items')).toEqual(
          expect.arrayContaining([expect.stringMatching(/^Operation List the items on the shelf/)]),
        );
        // the page speaks of the Shelf API only (the search also covers the decisions file of the folder it was built in)
        expect(await w.page.locator('main').textContent()).not.toMatch(/Paygate/);
        expect(await axe(w.page)).toEqual([]);
        // the only refusal is the static host's 404 for /healthz (the sandbox probe), reported by Chromium as a failed load
        const problems = await w.problems();
        expect(
          problems.filter((p) => !/status of 404 .*\/healthz$/.test(p)),
          problems.join('\n'),
        ).toEqual([]);
      } finally {
        await w.context.close();
      }
    }, 180_000);
  });
});
