/**
 * npm run docs  (tsx scripts/docs.ts [--out <dir>] [--openapi <root document>] [--skip-redoc])
 *
 * Builds the static, offline documentation site in docs/site/:
 *   index.html        Redoc rendering of the BUNDLED OpenAPI document (openapi/openapi.yaml + openapi/redocly.yaml)
 *   redoc.standalone.js (+ LICENSE)  copied from the installed `redoc` package; no CDN
 *   openapi.json / openapi.js        the bundled document (download / loaded by index.html, works from file://)
 *   events.html, errors.html, decisions.html  rendered from templates/docs/*.hbs
 * Sources: docs/errors.md and docs/decisions.md (their tables), the webhook event descriptions below.
 *
 * --openapi     another root document (its redocly.yaml beside it); default openapi/openapi.yaml
 * --skip-redoc  do not fail when the redoc package is not installed (the page will not render until it is)
 */
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadOpenApi } from '../generators/src/parse/openapi.js';
import {
  REDOC_SCRIPT,
  parseDecisions,
  parseErrorCatalogue,
  renderDocsSite,
  type DocsTemplates,
  type EventEntry,
  type WebhookGuide,
} from '../generators/src/emit/docs-site.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** The Redoc release whose standalone bundle is a single classic (UMD) script that works offline and from file://. */
const REDOC_PACKAGE = 'redoc@2.5.4';

const started = performance.now();
const step = (message: string) => console.log(`[docs] ${message}`);
const elapsed = () => `${Math.round(performance.now() - started)} ms`;

function parseArgs(argv: string[]) {
  const args = { out: path.join(ROOT, 'docs', 'site'), openapi: path.join(ROOT, 'openapi', 'openapi.yaml'), skipRedoc: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--skip-redoc') args.skipRedoc = true;
    else if (a === '--out' && argv[i + 1]) args.out = path.resolve(argv[++i]!);
    else if (a === '--openapi' && argv[i + 1]) args.openapi = path.resolve(argv[++i]!);
    else throw new Error(`unknown argument ${a}`);
  }
  return args;
}

// --- Webhook events (the seed's three events, plus those planned for later versions) -------------------------

const ENVELOPE: WebhookGuide['envelope'] = [
  { name: 'event_type', type: 'string', required: true, description: 'Event kind, e.g. `PAYMENT_FAILED`. Ignore values you do not know.' },
  { name: 'event_time', type: 'string', required: true, description: 'Time of the event; the format differs per event (see each event).' },
  { name: 'version', type: 'string', required: true, description: 'Payload version, `1.0`. Bumped on an incompatible payload change.' },
  { name: 'sequence_number', type: 'string (UUID)', required: true, description: 'Unique id of this event; `webhook-id` is `msg_` + this value. Use it to deduplicate.' },
  { name: 'data', type: 'object', required: true, description: 'Event-specific payload.' },
];

const HEADERS: WebhookGuide['headers'] = [
  { name: 'webhook-id', description: '`msg_` + the event\'s `sequence_number`; the same on every retry of the event.' },
  { name: 'webhook-timestamp', description: 'Unix time in seconds when this attempt was signed. Reject values more than 5 minutes from your clock.' },
  { name: 'webhook-signature', description: '`v1,` + base64(HMAC-SHA256(key, "{webhook-id}.{webhook-timestamp}.{raw body}")); key = base64-decoded part of the endpoint secret after `whsec_`. Several signatures are space-separated (during secret rotation); accept if any matches.' },
];

const DELIVERY: WebhookGuide['delivery'] = [
  'Standard Webhooks format. Register endpoints with the webhook endpoints API; the `whsec_` signing secret is shown once, in the create response.',
  'Answer with any 2xx within 10 s. A non-2xx answer (redirects are not followed) or a timeout is a failure.',
  'Retries after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h (each +-10% jitter), then the event is given up.',
  'At-least-once delivery and no ordering guarantee: deduplicate on `webhook-id`, and read the order, payment or settlement for its current state.',
  'Verify the signature over the raw body bytes, before parsing the JSON.',
];

const EXAMPLES: WebhookGuide['examples'] = [
  {
    title: 'With @paygate/webhooks (Express)',
    language: 'ts',
    code: `import express from 'express';
import { verifyWebhook } from '@paygate/webhooks';

const app = express();

// Keep the raw body: the signature covers the exact bytes sent.
app.post('/webhooks/paygate', express.raw({ type: 'application/json' }), (req, res) => {
  let event;
  try {
    event = verifyWebhook({
      secret: process.env.PAYGATE_WEBHOOK_SECRET!, // whsec_...
      headers: req.headers,
      body: req.body, // Buffer
    });
  } catch {
    return res.status(400).end(); // bad or missing signature, or stale timestamp
  }
  switch (event.event_type) {
    case 'PAYMENT_FAILED': /* event.data.order_id, event.data.message */ break;
    case 'PAYMENT_SETTLED': /* event.data.settlements */ break;
    case 'MERCHANT_APPROVED': /* event.data.merchant_id */ break;
    default: break; // ignore event types added later
  }
  res.status(204).end();
});`,
  },
  {
    title: 'Without a library (Node.js crypto)',
    language: 'js',
    code: `import { createHmac, timingSafeEqual } from 'node:crypto';

export function verify(secret, headers, rawBody) {
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  const signatures = headers['webhook-signature'];
  if (!id || !timestamp || !signatures) throw new Error('missing webhook headers');
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > 300) throw new Error('timestamp too old or too new');
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const expected = createHmac('sha256', key).update(\`\${id}.\${timestamp}.\${rawBody}\`).digest();
  const ok = signatures.split(' ').some((entry) => {
    const [version, signature = ''] = entry.split(',');
    const given = Buffer.from(signature, 'base64');
    return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!ok) throw new Error('signature mismatch');
  return JSON.parse(rawBody);
}`,
  },
];

const EVENTS: EventEntry[] = [
  {
    name: 'PAYMENT_FAILED',
    category: 'Payment',
    status: 'emitted',
    summary: 'A customer\'s payment attempt failed. The order moves to `payment_failed`.',
    eventTimeFormat: 'YYYY-MM-DD HH:MM:SSZ',
    fields: [
      { name: 'status', type: 'string', required: true, description: 'Always `FAILED`.' },
      { name: 'message', type: 'string', required: true, description: 'Failure reason.' },
      { name: 'mop_type', type: 'string', required: true, description: '`UPI`, `CREDIT_CARD`, `DEBIT_CARD`, `NET_BANKING` or `QR`.' },
      { name: 'order_id', type: 'string', required: true, description: 'Order id (`OD` + 16 digits).' },
      { name: 'payment_id', type: 'string', required: true, description: 'Payment id (`PR` + 16 digits).' },
      { name: 'bank_ref_num', type: 'string', required: true, description: 'Bank reference number (12 digits).' },
      { name: 'payment_completed_at', type: 'string', required: true, description: 'ISO 8601 UTC timestamp with microseconds, e.g. `2026-11-21T10:15:30.123456Z`.' },
    ],
    example: {
      event_type: 'PAYMENT_FAILED',
      event_time: '2026-11-21 10:15:30Z',
      version: '1.0',
      sequence_number: '0b6f2a9e-5c1d-4f6a-9d3e-7a8b9c0d1e2f',
      data: {
        status: 'FAILED',
        message: 'Payment declined by the issuing bank',
        mop_type: 'UPI',
        order_id: 'OD1000000000000001',
        payment_id: 'PR1000000000000001',
        bank_ref_num: '512345678901',
        payment_completed_at: '2026-11-21T10:15:30.123456Z',
      },
    },
  },
  {
    name: 'PAYMENT_SETTLED',
    category: 'Settlement',
    status: 'emitted',
    summary: 'Funds were transferred to the merchant by a settlement run.',
    eventTimeFormat: 'YYYY-MM-DD HH:MM:SS',
    fields: [
      { name: 'settlements', type: 'array', required: true, description: 'The settlements completed; each item has the fields below.' },
      { name: 'settlements[].settlement_id', type: 'string', required: true, description: 'Settlement id (`ST` + 16 digits).' },
      { name: 'settlements[].settlement_utr', type: 'string', required: true, description: 'Bank UTR (12 upper-case letters/digits); the settlement\'s `utr_number`.' },
      { name: 'settlements[].settlement_done_at', type: 'string', required: true, description: 'ISO 8601 UTC timestamp; the settlement\'s `settlement_completed_date`.' },
      { name: 'settlements[].forex_rate', type: 'number', required: true, description: 'Rate applied: the settlement\'s `forex_rate_cents` / 100.' },
      { name: 'settlements[].settlement_amount', type: 'number', required: true, description: 'Final amount transferred, in the settlement currency: `settlement_amount_cents` / 100.' },
    ],
    example: {
      event_type: 'PAYMENT_SETTLED',
      event_time: '2026-11-22 04:00:00',
      version: '1.0',
      sequence_number: '5a7c1e3b-2d4f-4a6b-8c9d-0e1f2a3b4c5d',
      data: {
        settlements: [
          {
            settlement_id: 'ST1000000000000001',
            settlement_utr: 'UTR4K2M9P7Q1',
            settlement_done_at: '2026-11-22T04:00:00.000000Z',
            forex_rate: 1,
            settlement_amount: 9756.4,
          },
        ],
      },
    },
  },
  {
    name: 'MERCHANT_APPROVED',
    category: 'Onboarding',
    status: 'emitted',
    summary: 'A merchant\'s KYC was approved (`kyc_status` `APPROVED`); it can now create orders.',
    eventTimeFormat: 'YYYY-MM-DD HH:MM:SS',
    fields: [
      { name: 'approved_at', type: 'string', required: true, description: 'ISO 8601 UTC timestamp of the approval.' },
      { name: 'merchant_id', type: 'string', required: true, description: 'Merchant id (numeric string).' },
      { name: 'legal_name', type: 'string', required: true, description: '`company_details.legal_name`.' },
      { name: 'trade_name', type: 'string', required: true, description: '`company_details.brand_name`.' },
    ],
    example: {
      event_type: 'MERCHANT_APPROVED',
      event_time: '2026-11-20 09:00:00',
      version: '1.0',
      sequence_number: '9e8d7c6b-5a4f-4e3d-9c2b-1a0f9e8d7c6b',
      data: {
        approved_at: '2026-11-20T09:00:00.000000Z',
        merchant_id: '10000001',
        legal_name: 'Acme Exports Private Limited',
        trade_name: 'Acme',
      },
    },
  },
  { name: 'PAYMENT_CAPTURED', category: 'Payment', status: 'future', summary: 'A payment was captured. Until then, read the order after the return-URL callback.', eventTimeFormat: '', fields: [], example: null },
  { name: 'REFUND_PROCESSED', category: 'Refund', status: 'future', summary: 'A refund reached `PROCESSED`. Until then, read the refund.', eventTimeFormat: '', fields: [], example: null },
  { name: 'REFUND_FAILED', category: 'Refund', status: 'future', summary: 'A refund reached `FAILED`. Until then, read the refund.', eventTimeFormat: '', fields: [], example: null },
];

// --- Steps ------------------------------------------------------------------------------------------------------

/** The bundled document, through the generators' parse layer (lint is `npm run lint:spec`'s job). */
async function bundleSpec(root: string): Promise<object> {
  const lintConfig = path.join(path.dirname(root), 'redocly.yaml');
  step(`bundling ${path.relative(ROOT, root)} with ${path.relative(ROOT, lintConfig)}`);
  const { document } = await loadOpenApi({ input: root, lintConfig, lint: 'skip', cwd: ROOT });
  return document;
}

/** The catalogue in docs/errors.md and the spec's ErrorCode enum must name the same codes. */
function checkErrorCodes(doc: object, codes: string[]): void {
  const schema = (doc as { components?: { schemas?: Record<string, { enum?: unknown }> } }).components?.schemas?.ErrorCode;
  if (!schema || !Array.isArray(schema.enum)) {
    step('warning: components/schemas/ErrorCode has no enum in the bundle; error catalogue not cross-checked');
    return;
  }
  const inSpec = new Set(schema.enum.map(String));
  const inDocs = new Set(codes);
  const missing = [...inDocs].filter((c) => !inSpec.has(c));
  const extra = [...inSpec].filter((c) => !inDocs.has(c));
  if (missing.length || extra.length) {
    throw new Error(`error catalogue drift: only in docs/errors.md [${missing.join(', ')}]; only in the spec [${extra.join(', ')}]`);
  }
  step(`error catalogue matches the spec's ErrorCode enum (${codes.length} codes)`);
}

function checkEvents(doc: object): void {
  const text = JSON.stringify(doc);
  const absent = EVENTS.filter((e) => e.status === 'emitted' && !text.includes(e.name)).map((e) => e.name);
  if (absent.length) step(`warning: event(s) not mentioned in the bundled spec: ${absent.join(', ')}`);
}

async function readTemplates(): Promise<DocsTemplates> {
  const dir = path.join(ROOT, 'templates', 'docs');
  const read = (name: string) => readFile(path.join(dir, `${name}.hbs`), 'utf8');
  const [layout, index, events, errors, decisions] = await Promise.all(
    ['layout', 'index', 'events', 'errors', 'decisions'].map(read),
  );
  return { layout: layout!, index: index!, events: events!, errors: errors!, decisions: decisions! };
}

function findRedocBundle(): string | undefined {
  try {
    return createRequire(import.meta.url).resolve('redoc/bundles/redoc.standalone.js');
  } catch {
    return undefined;
  }
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  step(`building the docs site into ${path.relative(ROOT, args.out) || '.'}`);

  const [errorsMd, decisionsMd] = await Promise.all([
    readFile(path.join(ROOT, 'docs', 'errors.md'), 'utf8'),
    readFile(path.join(ROOT, 'docs', 'decisions.md'), 'utf8'),
  ]);
  const errors = parseErrorCatalogue(errorsMd);
  const decisions = parseDecisions(decisionsMd);
  step(`read ${errors.length} error codes from docs/errors.md and ${decisions.length} decisions from docs/decisions.md`);

  const bundledDocument = await bundleSpec(args.openapi);
  checkErrorCodes(bundledDocument, errors.map((e) => e.code));
  checkEvents(bundledDocument);

  const redoc = findRedocBundle();
  if (!redoc) {
    const message = `the redoc package is not installed: run \`npm install -D ${REDOC_PACKAGE}\` (its bundles/redoc.standalone.js is served locally)`;
    if (!args.skipRedoc) throw new Error(message);
    step(`warning: ${message}; index.html will not render until it is`);
  }

  const files = renderDocsSite({
    bundledDocument,
    errors,
    decisions,
    events: EVENTS,
    webhooks: { envelope: ENVELOPE, headers: HEADERS, delivery: DELIVERY, examples: EXAMPLES },
    templates: await readTemplates(),
    redocScript: REDOC_SCRIPT,
  });

  // The output directory belongs to this script: start clean so removed pages do not linger.
  await rm(args.out, { recursive: true, force: true });
  await mkdir(args.out, { recursive: true });
  for (const [relative, contents] of [...files].sort(([a], [b]) => a.localeCompare(b))) {
    await writeFile(path.join(args.out, relative), contents);
    step(`  wrote ${relative} (${Buffer.byteLength(contents)} bytes)`);
  }
  if (redoc) {
    await copyFile(redoc, path.join(args.out, REDOC_SCRIPT));
    step(`  copied ${REDOC_SCRIPT} from ${path.relative(ROOT, redoc)}`);
    const license = `${redoc}.LICENSE.txt`;
    if (existsSync(license)) await copyFile(license, path.join(args.out, `${REDOC_SCRIPT}.LICENSE.txt`));
  }
  step(`done in ${elapsed()}`);
}

main().catch((error: unknown) => {
  console.error(`[docs] failed after ${elapsed()}: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
