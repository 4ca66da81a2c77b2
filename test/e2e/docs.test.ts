/**
 * The /docs site in real Chromium under the gateway's Content-Security-Policy (decision D40).
 *
 * The site is built once per test run (`scripts/docs.ts --out`, test/support/docs-site.ts), served by an in-process gateway, and every
 * page is loaded in Chromium with the CSP enforced (Playwright's bypassCSP is off). The Redoc reference must render
 * (title, operations, a search through Redoc's worker) and no page may report a CSP violation or a console error (the
 * site makes no third-party request: Redoc's credit image is a data: URL in the site's copy of its bundle, D136). A
 * control injects an inline script to show that a violation would be caught. Every page, at phone and desktop size:
 * no sideways scroll, axe clean, in the reader's words (no "seed"), events sorted, a changelog that headlines what can
 * break a client and the additions (D135 docs changelog written for clients; D137 operations tagged by feature).
 *
 * Chromium: CHROMIUM_PATH or /usr/bin/chromium. Missing => fail when REQUIRE_BROWSER=1, else skip with a loud message.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { isBrowserAvailable, launchChromium } from './browser.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOCS_CSP } from '../../packages/reference/src/app.js';
import { docsSiteOnce } from '../support/docs-site.js';
import { startGateway, type Gateway } from '../support/gateway.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

const browserAvailable = isBrowserAvailable('BROWSER DOCS TEST');

/** Redoc's "API docs by Redocly" logo: the standalone bundle loads it from this address, unconditionally (D136 Redoc bundle's CDN logo replaced locally). */
const REDOC_CDN_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';

interface Violation {
  directive: string;
  blocked: string;
  sample: string;
}

/** Collects securitypolicyviolation events from the first moment of every document (init scripts are not subject to the page's CSP). */
async function watchViolations(page: Page): Promise<() => Promise<Violation[]>> {
  await page.addInitScript(() => {
    const w = window as unknown as { __csp: Violation[] };
    w.__csp = [];
    document.addEventListener('securitypolicyviolation', (e) => {
      w.__csp.push({ directive: e.effectiveDirective, blocked: e.blockedURI, sample: e.sample });
    });
  });
  return () => page.evaluate(() => (window as unknown as { __csp: Violation[] }).__csp);
}

describe.skipIf(!browserAvailable)('docs site under its CSP in Chromium', () => {
  let site: string;
  let gw: Gateway;
  let browser: Browser;

  beforeAll(async () => {
    // the real build of the site (Redoc bundle copied from node_modules), shared with the other docs file of the run
    site = await docsSiteOnce();
    gw = await startGateway({ target: 'pglite', docsDir: site });
    browser = await launchChromium();
  }, 360_000);

  afterAll(async () => {
    await browser?.close();
    await gw?.close();
  });

  it('every /docs answer carries the CSP', async () => {
    for (const file of ['', 'index.html', 'redoc-init.js', 'openapi.json', 'errors.html', 'no-such-page.html']) {
      const res = await fetch(`${gw.baseUrl}/docs/${file}`);
      await res.arrayBuffer();
      expect(res.headers.get('content-security-policy'), file).toBe(DOCS_CSP);
      expect(res.headers.get('x-content-type-options'), file).toBe('nosniff');
    }
    expect(DOCS_CSP).not.toMatch(/script-src[^;]*'unsafe-(inline|eval)'/);
  });

  it('the Redoc reference renders and searches with no CSP violation or error', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    try {
      const page = await context.newPage();
      page.setDefaultTimeout(20_000);
      const errors: string[] = [];
      page.on('pageerror', (err) => errors.push(err.message));
      page.on('console', (msg) => {
        if (msg.type() === 'error') errors.push(`${msg.text()} ${msg.location().url}`);
      });
      const violations = await watchViolations(page);
      const res = await page.goto(`${gw.baseUrl}/docs/`);
      expect(res?.headers()['content-security-policy']).toBe(DOCS_CSP);
      // rendered by Redoc: the API title, an operation of the spec, the download link
      await page.getByRole('heading', { level: 1, name: /Paygate Payment Gateway API/ }).waitFor();
      await page.getByRole('heading', { level: 2, name: 'Issue merchant API credentials' }).waitFor();
      // Redoc's search runs its index in a worker (blob: URL): it must work under worker-src
      await page.getByPlaceholder('Search...').fill('refund');
      await page.locator('[data-role="search:results"] [data-item-id="tag/Refunds/operation/createRefund"]').waitFor();
      // Redoc's credit image comes from the site itself (a data: URL), so nothing is refused and nothing is logged,
      // not even the browser's favicon request (the layout names an empty icon)
      await page.locator('img[alt="redocly logo"]').waitFor();
      expect(await page.locator('img[alt="redocly logo"]').getAttribute('src')).toMatch(/^data:image\/svg\+xml,/);
      expect(await violations()).toEqual([]);
      expect(errors).toEqual([]);
      expect(await page.locator(`img[src="${REDOC_CDN_LOGO}"]`).count()).toBe(0);

      // control: an inline script is refused, and the watcher sees it
      await page.evaluate(() => {
        const s = document.createElement('script');
        s.textContent = 'window.__inlineRan = true';
        document.body.appendChild(s);
      });
      await expect.poll(async () => (await violations()).map((v) => v.directive)).toContain('script-src-elem');
      expect(await page.evaluate(() => (window as unknown as { __inlineRan?: boolean }).__inlineRan)).toBeUndefined();
    } finally {
      await context.close();
    }
  }, 120_000);

  const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  const VIEWPORTS = { phone: { width: 390, height: 844 }, desktop: { width: 1280, height: 800 } } as const;

  // the light reference's pages too (D388 light reference pages without Redoc; D390 diagrams drawn at build time): an operation page, the list, the schemas, the diagrams
  const PAGES = [
    'index.html',
    'events.html',
    'errors.html',
    'decisions.html',
    'changelog.html',
    'operations.html',
    'operation-createOrder.html',
    'schemas.html',
    'diagrams.html',
  ] as const;

  /**
   * One tab per size that visits every page in turn, as a reader moving through the site does: each visit is a new
   * document (its own CSP watcher, console and axe run), while the tab's renderer process, and axe compiled in it,
   * stay. A new context per page and size cost Chromium a process start and a cold axe each time: the 18 visits took
   * about 57 CPU-s of Chromium that way and about 40 in two tabs (docs/benchmarks.md, npm test: wall time and CPU).
   */
  interface Tab {
    page: Page;
    errors: string[];
    violations: () => Promise<Violation[]>;
  }
  const tabs = new Map<keyof typeof VIEWPORTS, Promise<Tab>>();
  const tabOf = (viewport: keyof typeof VIEWPORTS): Promise<Tab> => {
    let tab = tabs.get(viewport);
    if (tab === undefined) {
      tab = (async () => {
        const context = await browser.newContext({ viewport: VIEWPORTS[viewport] });
        const page = await context.newPage();
        page.setDefaultTimeout(30_000);
        const errors: string[] = [];
        page.on('pageerror', (err) => errors.push(err.message));
        page.on('console', (msg) => {
          if (msg.type() === 'error') errors.push(`${msg.text()} ${msg.location().url}`);
        });
        return { page, errors, violations: await watchViolations(page) };
      })();
      tabs.set(viewport, tab);
    }
    return tab;
  };
  afterAll(async () => {
    for (const tab of tabs.values()) await (await tab).page.context().close();
  });

  it.each(PAGES.flatMap((name) => (Object.keys(VIEWPORTS) as (keyof typeof VIEWPORTS)[]).map((viewport) => [name, viewport] as const)))(
    '%s at %s size: no sideways scroll, the header above the content, axe clean, no console error or CSP violation, no "seed"',
    async (name, viewport) => {
      const { page, errors, violations } = await tabOf(viewport);
      errors.length = 0; // what the last page reported was checked by its own test
      await page.goto(`${gw.baseUrl}/docs/${name}`);
      await page.locator('header.site').waitFor();
      // the reference is rendered by Redoc: wait for its last part (the credit below the sidebar)
      const content = name === 'index.html' ? page.locator('#redoc-container') : page.locator('main').first();
      if (name === 'index.html') await page.locator('img[alt="redocly logo"]').waitFor({ state: 'attached' });
      // artifacts: the whole page, except the three longest (Redoc's reference, the decisions table, the schemas) shown
      // as the reader first sees them: the schemas page whole was a 12 MB PNG some 50,000 pixels tall, which nobody
      // reads and which cost Chromium about 5 CPU-s per size to draw and encode (docs/benchmarks.md, npm test: wall time and CPU)
      const fullPage = !['index.html', 'decisions.html', 'schemas.html'].includes(name);
      await page.screenshot({
        path: path.join(ROOT, 'test-results/e2e', `docs-${name.replace('.html', '')}-${viewport}.png`),
        fullPage,
        timeout: 120_000,
      });
      expect(
        await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth),
        'page wider than the viewport',
      ).toBeLessThanOrEqual(0);
      const header = await page.locator('header.site').boundingBox();
      const main = await content.boundingBox();
      expect(header && main && header.y + header.height <= main.y + 1, 'the header overlaps the content').toBe(true);
      await page.evaluate(AXE_SOURCE);
      // Redoc numbers its headings itself (an operation's h2 is followed by h5 field groups), with no option to change
      // it: on the reference page only that rule is left out; every other rule, of every impact, applies everywhere
      const disabled = name === 'index.html' ? ['heading-order'] : [];
      const axeViolations = await page.evaluate(async (off) => {
        type AxeRun = { violations: { id: string; impact: string | null; nodes: unknown[] }[] };
        const axe = (window as unknown as { axe: { run(context: Document, options: object): Promise<AxeRun> } }).axe; // why: a global the injected script defines
        const rules = Object.fromEntries(off.map((id) => [id, { enabled: false }]));
        return (await axe.run(document, { rules })).violations.map((v) => `${v.id} [${v.impact ?? '?'}] (${v.nodes.length})`);
      }, disabled);
      expect(axeViolations).toEqual([]);
      // in the reader's words: the whole text, folded parts included
      expect(await page.evaluate(() => document.body.textContent ?? '')).not.toMatch(/\bseed/i);
      expect(await violations()).toEqual([]);
      expect(errors).toEqual([]);
    },
    300_000, // axe over Redoc's whole reference takes a minute or more on a loaded 2-core machine
  );

  it('the events page and the reference list the events by name', async () => {
    const context = await browser.newContext({ viewport: VIEWPORTS.desktop });
    try {
      const page = await context.newPage();
      page.setDefaultTimeout(30_000);
      await page.goto(`${gw.baseUrl}/docs/events.html`);
      const sections = await page.locator('section.event').evaluateAll((nodes) => nodes.map((n) => n.id));
      expect(sections.length).toBeGreaterThan(1);
      expect(sections).toEqual([...sections].sort());
      const listed = await page.locator('main > p').first().locator('a code').allTextContents();
      expect(listed).toEqual(sections);
      // Redoc lists webhooks in document order: the served document has them sorted
      const spec = (await (await fetch(`${gw.baseUrl}/docs/openapi.json`)).json()) as { webhooks: Record<string, unknown> };
      const names = Object.keys(spec.webhooks);
      expect(names).toEqual([...names].sort());
      expect(JSON.stringify(spec)).not.toMatch(/\bseed/i);
    } finally {
      await context.close();
    }
  }, 120_000);

  it('the changelog headlines breaking changes and additions, counts the documentation changes in a folded list', async () => {
    const context = await browser.newContext({ viewport: VIEWPORTS.phone });
    try {
      const page = await context.newPage();
      await page.goto(`${gw.baseUrl}/docs/changelog.html`);
      const headline = (await page.locator('p.headline').first().textContent()) ?? '';
      expect(headline).toMatch(/^Compared with \d+\.\d+\.\d+: \d+ breaking changes?\b.* and \d+ additions?\./);
      expect(headline).not.toMatch(/annotation|documentation|non-breaking/i);
      // the folded list is closed, and its count is the number of its rows
      const details = page.locator('section.release').first().locator('details');
      expect(await details.getAttribute('open')).toBeNull();
      const summary = (await details.locator('summary').textContent()) ?? '';
      const rows = await details.locator('tbody tr').count();
      expect(summary).toMatch(new RegExp(`^${rows} documentation changes? `));
      // biome-ignore lint/performance/useDomNodeTextContent: Playwright's innerText is the rendered text a reader sees (folded <details> included), which is what must not say it
      expect(await page.locator('body').innerText()).not.toMatch(/annotation/i);
    } finally {
      await context.close();
    }
  }, 120_000);
});
