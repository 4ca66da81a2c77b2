/**
 * What every browser checkout test starts from: an in-process gateway (PGlite), an approved merchant ("Cane Corner"),
 * the merchant's site on 127.0.0.1 (./merchant-site.ts) and the system Chromium; screenshots go to SCREENSHOTS.
 */
import { readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';
import { startGateway, type Gateway } from '../support/gateway.js';
import { clientFor, onboardMerchant, type MerchantAccess } from '../faults/helpers/api.js';
import { launchChromium } from './browser.js';
import { startMerchantSite, type MerchantSite } from './merchant-site.js';

export const SCREENSHOTS = fileURLToPath(new URL('../../test-results/e2e/', import.meta.url));

export interface CheckoutWorld {
  gw: Gateway;
  merchant: MerchantAccess;
  site: MerchantSite;
  browser: Browser;
  /** Closes the browser, the site and the gateway (whatever was started). */
  close(): Promise<void>;
}

export async function startCheckoutWorld(): Promise<CheckoutWorld> {
  await mkdir(SCREENSHOTS, { recursive: true });
  const gw = await startGateway({ target: 'pglite' });
  let site: MerchantSite | undefined;
  try {
    const merchant = await onboardMerchant(gw.baseUrl, clientFor(gw.baseUrl, gw.partner), 'Cane Corner');
    site = await startMerchantSite(gw.baseUrl, merchant);
    const browser = await launchChromium();
    const started = site;
    return {
      gw,
      merchant,
      site: started,
      browser,
      async close() {
        await browser.close();
        await started.close();
        await gw.close();
      },
    };
  } catch (error) {
    await site?.close();
    await gw.close();
    throw error;
  }
}

export const VIEWPORTS = {
  desktop: { width: 1280, height: 800 },
  phone: { width: 390, height: 844 },
} as const;
export type ViewportName = keyof typeof VIEWPORTS;

/** A browser tab the checkout tests use: its page, the console errors (a CSP violation is one) since it was opened, and how to give it back. */
export interface OpenedPage {
  page: Page;
  consoleErrors: string[];
  /** Gives the tab back (blank, without the listeners a test added) for the next test that opens one of its kind. */
  close(): Promise<void>;
}

interface Tab {
  page: Page;
  consoleErrors: string[];
}

/**
 * Idle tabs per browser and kind (size, JavaScript on or off). Why reuse: a new context is a new Chromium renderer
 * process, and each one cost about a CPU-second to start and to compile axe again (docs/benchmarks.md, npm test: wall
 * time and CPU); a test still gets a page of its own, never one another test is using, on a new document (the
 * checkout sets no cookie and keeps nothing in storage, so nothing of an earlier test's session reaches the next).
 */
const idleTabs = new WeakMap<Browser, Map<string, Tab[]>>();

/** A page of its own for a test, at `viewport` size; console errors are collected for the test to check. */
export async function openPage(
  browser: Browser,
  viewport: ViewportName,
  options: { javaScriptEnabled?: boolean } = {},
): Promise<OpenedPage> {
  const javaScriptEnabled = options.javaScriptEnabled ?? true;
  const kind = `${viewport}/${String(javaScriptEnabled)}`;
  let kinds = idleTabs.get(browser);
  if (kinds === undefined) idleTabs.set(browser, (kinds = new Map()));
  let tab = kinds.get(kind)?.pop();
  if (tab === undefined) {
    const context: BrowserContext = await browser.newContext({ viewport: VIEWPORTS[viewport], javaScriptEnabled });
    const page = await context.newPage();
    const consoleErrors: string[] = [];
    page.on('console', (msg) => {
      if (msg.type() === 'error') consoleErrors.push(`${page.url()}: ${msg.text()}`);
    });
    page.on('pageerror', (err) => consoleErrors.push(`${page.url()}: ${err.message}`));
    tab = { page, consoleErrors };
  }
  const opened = tab;
  opened.page.setDefaultTimeout(10_000);
  opened.consoleErrors.length = 0;
  let given = false;
  return {
    page: opened.page,
    consoleErrors: opened.consoleErrors,
    async close() {
      // once: a tab given back twice would be handed to two tests at the same time
      if (given) return;
      given = true;
      // the test's own listeners go; the tab's console listeners stay
      for (const event of ['request', 'response', 'requestfinished', 'requestfailed', 'dialog', 'framenavigated'] as const)
        await opened.page.removeAllListeners(event);
      await opened.page.goto('about:blank');
      const idle = kinds.get(kind) ?? [];
      idle.push(opened);
      kinds.set(kind, idle);
    },
  };
}

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[] }[];
}
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core in the page (evaluated over DevTools, which the page's CSP does not govern): no serious or critical violation. */
export async function expectAccessible(page: Page, name: string): Promise<void> {
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(): Promise<{ violations: AxeViolation[] }> } }).axe; // why: axe is a global the injected script defines
    return (await axe.run()).violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target) }));
  });
  const blocking = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(blocking, `${name}: ${JSON.stringify(blocking, null, 2)}`).toEqual([]);
}
