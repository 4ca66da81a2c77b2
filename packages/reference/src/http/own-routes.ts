import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import express, { type NextFunction, type Request, type Response } from 'express';
import { HOME_LINKS, HOME_PAGE_CSP, renderHomePage } from '../home/page.js';
import type { ReferenceRuntime } from '../runtime.js';
import { errorBody } from './errors.js';

/** Repository root `docs/site/` (the same relative depth from src/ and dist/). */
export const DEFAULT_DOCS_DIR = fileURLToPath(new URL('../../../../docs/site/', import.meta.url));

/**
 * Content-Security-Policy of the /docs site (D40 docs site content security policy), checked in Chromium by test/e2e/docs.test.ts: scripts only from the
 * site itself (Redoc's bundle, the document, redoc-init.js: no inline script, no eval); styles from the site and
 * inline, because Redoc renders with styled-components (injected <style> elements and style attributes); images only
 * as data: URLs (Redoc's icons; its attribution logo on cdn.redoc.ly is refused: no third-party requests); workers from
 * blob: (Redoc's search index); fetch to the gateway itself only (`connect-src 'self'`: the operation pages' try-it asks
 * /healthz whether this is a sandbox and sends the reader's request, D391); nothing else (no fonts, plugins, frames,
 * forms or <base>). Removing img-src, worker-src or connect-src makes that test fail; font-src was not needed.
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  'img-src data:',
  'worker-src blob:',
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const DOCS_HEADERS = {
  'Content-Security-Policy': DOCS_CSP,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

/** A path is under `prefix` as Express's `app.use(prefix)` would match it: the prefix itself or below it. */
export function under(path: string, prefix: string): boolean {
  return path.startsWith(prefix) && (path.length === prefix.length || path.charCodeAt(prefix.length) === 47) /* / */;
}

/** The paths of the gateway's own routes (health, docs, home page): every other path never enters their router. */
export function isOwnRoute(path: string): boolean {
  return path === '/' || path === '/healthz' || path === '/readyz' || under(path, '/docs');
}

/**
 * The gateway's own routes (health, readiness, docs, home page), in a router of their own that only their paths enter
 * (D148 gateway's pre-scaffold work in one middleware). Matched exactly (slash and case), as the scaffold matches the API's.
 */
export function ownRoutes(rt: ReferenceRuntime, options: { docsDir?: string | undefined }): express.Router {
  const router = express.Router({ strict: true, caseSensitive: true });

  // Liveness: the process is up and its event loop answers. No dependency is checked: a database outage is not
  // cured by restarting the gateway (the requests get 503 meanwhile), so an orchestrator must not kill it for one (D102 liveness and readiness health routes).
  router.get('/healthz', (_req: Request, res: Response) => {
    res.locals['route'] = '/healthz';
    res.set('Cache-Control', 'no-store');
    res.status(200).json({ status: 'ok', mode: rt.config.sandbox ? 'sandbox' : 'production' });
  });

  // Readiness: send this process traffic? The database (and Redis when REDIS_URL is set) answered within a bound,
  // and the process is not draining; else 503 naming what failed (D102 liveness and readiness health routes).
  router.get('/readyz', async (_req: Request, res: Response) => {
    res.locals['route'] = '/readyz';
    res.set('Cache-Control', 'no-store');
    const report = await rt.readiness.check();
    if (!report.ready) res.set('Retry-After', '1');
    res
      .status(report.ready ? 200 : 503)
      .json({ status: report.status, checks: report.checks, ...(report.ready ? {} : { failing: report.failing }) });
  });

  // Static documentation site (built by `npm run docs`), under its own CSP (D40 docs site content security policy).
  const docsDir = options.docsDir ?? DEFAULT_DOCS_DIR;
  router.use('/docs', (_req: Request, res: Response, next: NextFunction) => {
    res.locals['route'] = '/docs/*';
    res.set(DOCS_HEADERS);
    if (!existsSync(docsDir)) {
      res.status(404).json(errorBody(404, 'ERR_REQUEST_404', 'Documentation site not built: run npm run docs'));
      return;
    }
    next();
  });
  router.use('/docs', express.static(docsDir, { index: 'index.html', fallthrough: true, redirect: true }));
  router.use('/docs', (_req: Request, res: Response) => {
    res.status(404).json(errorBody(404, 'ERR_REQUEST_404', 'No such documentation page'));
  });

  // A browser opening the gateway's address lands on links to the docs, not on a JSON 404.
  router.get('/', (req: Request, res: Response) => {
    res.locals['route'] = '/';
    const mode = rt.config.sandbox ? 'sandbox' : 'production';
    if (req.accepts(['html', 'json']) === 'json') {
      res.status(200).json({ name: 'Paygate', mode, links: HOME_LINKS });
      return;
    }
    res
      .status(200)
      .set({ 'Content-Security-Policy': HOME_PAGE_CSP, 'Referrer-Policy': 'no-referrer' })
      .type('html')
      .send(renderHomePage(mode));
  });
  return router;
}
