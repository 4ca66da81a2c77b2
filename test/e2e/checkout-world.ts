/**
 * What every browser checkout test starts from: an in-process gateway (PGlite), an approved merchant ("Cane Corner"),
 * the merchant's site on 127.0.0.1 (./merchant-site.ts) and the system Chromium; screenshots go to SCREENSHOTS.
 */
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
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
