/**
 * BENCH_ONLY=docs: how fast a deep link to one operation shows its content on a phone (issue 34: under 1 s at 390 px
 * with the CPU throttled 4x), the light reference's pre-rendered page (D388 light reference pages without Redoc) against Redoc's deep link to the same
 * operation in the same rounds.
 *
 * The site is built by `npm run docs` into a temporary directory and served by a plain static server on loopback under
 * the docs' Content-Security-Policy (no gateway: both pages are static files, so the server costs both the same).
 * Each round opens a fresh Chromium page at 390 x 844 with `Emulation.setCPUThrottlingRate` 4, navigates to the link
 * and stops when the operation's heading is visible; the median of the rounds is reported, with the browser's own
 * first contentful paint beside it. Chromium missing: the section reports nothing and says so.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import express from 'express';
import { chromium } from 'playwright-core';
import type { Budget } from '../lib/report.js';

export interface DocsRow {
  section: 'docs';
  name: string;
  ms: number;
  baseline?: string;
  ratio?: number;
  note?: string;
  [key: string]: unknown;
}

/** The issue's goal for a deep link on a throttled phone. */
const DEEP_LINK_GOAL_MS = 1000;
const ROUNDS = 5;
const PAGE = 'pre-rendered operation page: deep link to content, 390 px, CPU 4x slower (median)';
const REDOC = 'Redoc: deep link to the same operation, 390 px, CPU 4x slower (median)';
/** The docs' CSP (packages/reference/src/app.ts DOCS_CSP), repeated so the bench needs no build of the gateway. */
const CSP = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src data:; worker-src blob:; connect-src 'self'";

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function runDocsSection(o: { root: string; log: (line: string) => void }): Promise<DocsRow[]> {
  const executablePath = process.env['CHROMIUM_PATH'] || '/usr/bin/chromium';
  if (!existsSync(executablePath)) {
    o.log(`docs: Chromium not found at ${executablePath} (apt-get install -y chromium): section skipped`);
    return [];
  }
  o.log('docs: building the site, then a deep link to createOrder at 390 px with the CPU 4x slower, pre-rendered page vs Redoc');
  const site = mkdtempSync(path.join(os.tmpdir(), 'paygate-bench-docs-'));
  const app = express();
  app.use((_req, res, next) => {
    res.set('Content-Security-Policy', CSP);
    next();
  });
  app.use('/docs', express.static(site));
  const server = createServer(app);
  const browser = await chromium.launch({ executablePath, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'] });
  try {
    await promisify(execFile)(path.join(o.root, 'node_modules/.bin/tsx'), ['scripts/docs.ts', '--out', site], {
      cwd: o.root,
      timeout: 600_000,
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/docs`;
    const targets = [
      { name: PAGE, url: `${base}/operation-createOrder.html`, ready: 'main#createOrder h1' },
      { name: REDOC, url: `${base}/index.html#operation/createOrder`, ready: '[id="tag/Orders/operation/createOrder"] h2' },
    ];
    const ms = new Map<string, number[]>(targets.map((t) => [t.name, []]));
    const fcp = new Map<string, number[]>(targets.map((t) => [t.name, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const t of targets) {
        const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
        try {
          const page = await context.newPage();
          const cdp = await context.newCDPSession(page);
          await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
          const started = performance.now();
          await page.goto(t.url, { waitUntil: 'commit' });
          await page.locator(t.ready).first().waitFor({ state: 'visible', timeout: 120_000 });
          ms.get(t.name)!.push(performance.now() - started);
          fcp
            .get(t.name)!
            .push(await page.evaluate(() => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? Number.NaN));
        } finally {
          await context.close();
        }
      }
    }
    const page = median(ms.get(PAGE)!);
    const redoc = median(ms.get(REDOC)!);
    const note = (name: string) =>
      `first contentful paint ${median(fcp.get(name)!).toFixed(0)} ms; rounds ${ms
        .get(name)!
        .map((x) => x.toFixed(0))
        .join(', ')} ms`;
    o.log(`docs: pre-rendered page ${page.toFixed(0)} ms, Redoc ${redoc.toFixed(0)} ms`);
    return [
      { section: 'docs', name: PAGE, ms: page, baseline: 'Redoc', ratio: page / redoc, note: note(PAGE) },
      { section: 'docs', name: REDOC, ms: redoc, note: note(REDOC) },
    ];
  } finally {
    await browser.close();
    server.close();
    rmSync(site, { recursive: true, force: true });
  }
}

export function docsBudgets(rows: readonly { section: string; name: string; ms?: number }[]): Budget[] {
  const page = rows.find((r) => r.section === 'docs' && r.name === PAGE);
  const redoc = rows.find((r) => r.section === 'docs' && r.name === REDOC);
  if (page?.ms === undefined) return [];
  return [
    {
      name: "Deep link to an operation's content, 390 px, CPU 4x slower",
      target: `< ${DEEP_LINK_GOAL_MS / 1000} s`,
      value: `${(page.ms / 1000).toFixed(2)} s${redoc?.ms === undefined ? '' : ` (Redoc ${(redoc.ms / 1000).toFixed(2)} s)`}`,
      met: page.ms < DEEP_LINK_GOAL_MS,
    },
  ];
}
