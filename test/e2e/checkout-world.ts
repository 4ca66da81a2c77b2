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

/** A fresh context and page; console errors (a CSP violation is one) are collected for the test to check. */
export async function openPage(browser: Browser, viewport: ViewportName, options: { javaScriptEnabled?: boolean } = {}) {
  const context: BrowserContext = await browser.newContext({
    viewport: VIEWPORTS[viewport],
    javaScriptEnabled: options.javaScriptEnabled ?? true,
  });
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  const consoleErrors: string[] = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') consoleErrors.push(`${page.url()}: ${msg.text()}`);
  });
  page.on('pageerror', (err) => consoleErrors.push(`${page.url()}: ${err.message}`));
  return { context, page, consoleErrors };
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
