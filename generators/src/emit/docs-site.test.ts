import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Changelog } from '../diff/changelog.js';
import type { Change } from '../diff/types.js';
import { buildModel } from '../model/build.js';
import { generate } from '../pipeline.js';
import { readDecisionRecords, readDecisionsSource } from './decision-records.js';
import {
  changelogHeadline,
  changelogTodo,
  changelogView,
  eventEntries,
  REDOC_CDN_LOGO,
  withLocalRedocLogo,
  withSortedWebhooks,
  REDOC_SCRIPT,
  webhookGuide,
  REDOC_INIT_SCRIPT,
  SPEC_GLOBAL,
  SPEC_JSON,
  SPEC_SCRIPT,
  inlineHtml,
  parseDecisions,
  parseErrorCatalogue,
  parseMarkdownTables,
  readDocsTemplates,
  renderDocsSite,
  searchDocuments,
  type DocsSiteInput,
  type DocsTemplates,
} from './docs-site.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const read = (...parts: string[]) => readFileSync(path.join(ROOT, ...parts), 'utf8');

const templates: DocsTemplates = {
  layout: read('generators/templates/docs/layout.hbs'),
  index: read('generators/templates/docs/index.hbs'),
  events: read('generators/templates/docs/events.hbs'),
  errors: read('generators/templates/docs/errors.hbs'),
  decisions: read('generators/templates/docs/decisions.hbs'),
  changelog: read('generators/templates/docs/changelog.hbs'),
};

function input(overrides: Partial<DocsSiteInput> = {}): DocsSiteInput {
  return {
    bundledDocument: {
      openapi: '3.1.0',
      info: { title: 'Paygate API', version: '1.0.0', description: '</script><script>alert(1)</script>' },
      paths: {},
    },
    errors: [
      { code: 'ERR_VALIDATION_400', status: 400, when: 'Body failed validation', details: 'one key per field', action: 'Fix the fields' },
      {
        code: 'ERR_REFUND_422',
        status: 422,
        when: 'amount > refundable & `payment` not <captured>',
        details: '`refund_amount`',
        action: 'Refund less',
      },
    ],
    decisions: [
      {
        id: 'A1',
        group: 'A. Not shown',
        specSays: '"Initial status: not shown."',
        decision: '`payment_pending`',
        reason: 'r',
        anchor: 'Cashfree',
      },
      {
        id: 'B1',
        group: 'B. Inconsistencies',
        specSays: '`NETBANKING` vs `NET_BANKING`',
        decision: 'canonical `NET_BANKING`',
        reason: 'r',
        anchor: 'Stripe',
      },
    ],
    events: [
      {
        name: 'PAYMENT_FAILED',
        category: 'Payment',
        status: 'emitted',
        summary: 'A payment failed.',
        eventTimeFormat: 'YYYY-MM-DD HH:MM:SSZ',
        fields: [{ name: 'order_id', type: 'string', required: true, description: 'Order id' }],
        example: { event_type: 'PAYMENT_FAILED', data: { order_id: 'OD1000000000000001' } },
      },
      {
        name: 'MERCHANT_APPROVED',
        category: 'Onboarding',
        status: 'emitted',
        summary: 'Approved.',
        eventTimeFormat: 'YYYY-MM-DD HH:MM:SS',
        fields: [{ name: 'merchant_id', type: 'string', required: true, description: 'Merchant id' }],
        example: { event_type: 'MERCHANT_APPROVED' },
      },
      { name: 'REFUND_PROCESSED', category: 'Refund', status: 'future', summary: 'Later.', eventTimeFormat: '', fields: [], example: null },
    ],
    webhooks: {
      envelope: [{ name: 'event_type', type: 'string', required: true, description: 'kind' }],
      headers: [{ name: 'webhook-signature', description: '`v1,<base64>`' }],
    },
    templates,
    ...overrides,
  };
}

describe('renderDocsSite', () => {
  const files = renderDocsSite(input());
  const page = (name: string) => {
    const html = files.get(name);
    if (html === undefined) throw new Error(`${name} not rendered`);
    return html;
  };

  it('writes the pages and the spec next to each other', () => {
    expect([...files.keys()].sort()).toEqual(
      ['decisions.html', 'errors.html', 'events.html', 'index.html', REDOC_INIT_SCRIPT, SPEC_JSON, SPEC_SCRIPT].sort(),
    );
    expect(JSON.parse(page(SPEC_JSON))).toEqual(input().bundledDocument);
    expect(page(SPEC_SCRIPT).startsWith(`window.${SPEC_GLOBAL} = `)).toBe(true);
  });

  it('index loads the local Redoc bundle and the adjacent spec, never a remote script', () => {
    const index = page('index.html');
    expect(index).toContain(`<script src="${REDOC_SCRIPT}"></script>`);
    expect(index).toContain(`<script src="${SPEC_SCRIPT}"></script>`);
    // Redoc starts from a file of its own: no inline script, so the site works under script-src 'self' (D40 docs site content security policy)
    expect(index).toContain(`<script src="${REDOC_INIT_SCRIPT}"></script>`);
    expect(index).not.toMatch(/<script>/);
    expect(page(REDOC_INIT_SCRIPT)).toContain(`Redoc.init(window.${SPEC_GLOBAL}, {`);
    expect(page(REDOC_INIT_SCRIPT)).toMatch(/\}, container, focusable\);\n$/);
    // Redoc renders into the page's main landmark; the site's own page styles do not reach it
    expect(index).toContain('<main id="redoc-container"></main>');
    expect(page(REDOC_INIT_SCRIPT)).toContain(`"downloadDefinitionUrl":"${SPEC_JSON}"`);
    expect(index).toContain(`href="${SPEC_JSON}"`);
    // The spec text is not inlined into the HTML, so a description cannot break out of a <script>.
    expect(index).not.toContain('alert(1)');
  });

  it('no page loads scripts, styles or fonts from the network', () => {
    for (const [name, html] of files) {
      if (!name.endsWith('.html')) continue;
      expect(html, name).not.toMatch(/<script[^>]*\bsrc\s*=\s*["']?(https?:)?\/\//i);
      expect(html, name).not.toMatch(/<link[^>]*\bhref\s*=\s*["']?(https?:)?\/\//i);
      expect(html, name).not.toMatch(/@import/i);
    }
  });

  it('errors page lists every code with its status, escaping text', () => {
    const html = page('errors.html');
    for (const e of input().errors) {
      expect(html).toContain(`<tr id="${e.code}"><td><code>${e.code}</code></td><td>${e.status}</td>`);
    }
    expect(html).toContain('amount &gt; refundable &amp; <code>payment</code> not &lt;captured&gt;');
    expect(html).not.toContain('<captured>');
  });

  it('events page documents every event, the envelope, headers and the verification example', () => {
    const html = page('events.html');
    for (const e of input().events) expect(html).toContain(e.name);
    expect(html).toContain('id="PAYMENT_FAILED"');
    expect(html).toContain('YYYY-MM-DD HH:MM:SSZ');
    expect(html).toContain('<code>webhook-signature</code>');
    expect(html).toContain('<code>v1,&lt;base64&gt;</code>');
    expect(html).toContain('@paygate/webhooks');
    expect(html).toContain('version === &#x27;v1&#x27; &amp;&amp; given.length');
    expect(html).toContain('case &#x27;MERCHANT_APPROVED&#x27;: /* event.data */ break;');
    expect(html).toContain('&quot;OD1000000000000001&quot;');
    // Future events are listed as planned, not as sections.
    expect(html).not.toContain('id="REFUND_PROCESSED"');
    expect(html).toMatch(/Planned events[\s\S]*REFUND_PROCESSED/);
  });

  it('decisions page groups rows under their section headings, code spans rendered', () => {
    const html = page('decisions.html');
    expect(html).toContain('<h2>A. Not shown</h2>');
    expect(
      renderDocsSite(input({ decisions: [{ ...input().decisions[0]!, group: 'A. Items marked `not shown`' }] })).get('decisions.html'),
    ).toContain('<h2>A. Items marked <code>not shown</code></h2>');
    expect(html).toContain('<th>The original specification says</th>');
    expect(html).toContain('<h2>B. Inconsistencies</h2>');
    expect(html).toContain('<tr id="A1">');
    expect(html).toContain('canonical <code>NET_BANKING</code>');
  });

  it("a decision record's title heads its decision cell and names it in the search (D450)", () => {
    const titled = input({ decisions: [{ ...input().decisions[0]!, title: 'A new order starts `payment_pending`' }] });
    const site = renderDocsSite(titled);
    expect(site.get('decisions.html')).toContain(
      '<strong>A new order starts <code>payment_pending</code></strong><br><code>payment_pending</code>',
    );
    const found = searchDocuments(titled, [], []).find((d) => d.code === 'A1');
    expect(found?.title).toBe('A1: A new order starts `payment_pending`');
    expect(page('decisions.html')).not.toContain('<strong>'); // a table row has no title
  });

  it('is deterministic', () => {
    const again = renderDocsSite(input());
    expect([...again]).toEqual([...files]);
  });

  it('renders the changelog page, linked from every page, only when a changelog is given', () => {
    const removed = {
      classification: 'breaking' as const,
      kind: 'property-removed',
      document: 'openapi' as const,
      pointer: '/components/schemas/Order/properties/note',
      message: 'GET /orders: [Removed] property `note` <b>',
      uses: [{ where: 'GET /orders', in: 'response 200 (application/json)', direction: 'response' as const }],
      useCount: 1,
    };
    const counts = { breaking: 1, unclassified: 0, warning: 0, 'non-breaking': 0, annotation: 0 };
    const site = renderDocsSite(
      input({
        changelog: {
          sections: [
            { title: 'Unreleased', date: '', previous: '1.0.0', counts, groups: [{ classification: 'breaking', changes: [removed] }] },
            { title: '1.0.0', date: '2026-11-25', previous: undefined, counts: { ...counts, breaking: 0 }, groups: [] },
          ],
        },
      }),
    );
    const html = site.get('changelog.html') ?? '';
    expect(html).toContain('<h2 id="v-1.0.0">1.0.0 <small>(2026-11-25)</small></h2>');
    expect(html).toContain('<p class="headline">Compared with 1.0.0: 1 breaking change and 0 additions.</p>');
    expect(html).toContain('<h3>Breaking changes</h3>');
    expect(html).toContain('[Removed] property <code>note</code> &lt;b&gt;');
    expect(html).toContain('<td>GET /orders (response 200 (application/json))</td><td>Stop relying on it before you upgrade.</td>');
    expect(html).toContain('The first released version');
    expect(site.get('errors.html')).toContain('href="changelog.html"');
    expect(files.has('changelog.html')).toBe(false);
    expect(page('errors.html')).not.toContain('changelog.html');
  });

  describe("the changelog for the API's clients (D135)", () => {
    const change = (classification: Change['classification'], kind: string, pointer: string, message: string): Change => ({
      classification,
      kind,
      document: 'openapi',
      pointer,
      message,
      uses: [{ where: 'GET /things', in: 'response 200 (application/json)', direction: 'response' }],
      useCount: 1,
    });
    const changes = [
      change('warning', 'enum-value-added', '/components/schemas/Status/enum/3', 'schema Status: enum value added: `LOST`'),
      change('non-breaking', 'property-added', '/components/schemas/Thing/properties/colour', 'schema Thing: property added at `colour`'),
      change('non-breaking', 'operation-added', '/paths/~1things/post', 'POST /things: operation added'),
      change(
        'annotation',
        'description-changed',
        '/components/schemas/Thing',
        'schema Thing: description changed: `Old words` -> `New words`',
      ),
      change('annotation', 'example-changed', '/components/schemas/Thing/example', 'schema Thing: example changed'),
    ];
    const counts = { breaking: 0, unclassified: 0, warning: 1, 'non-breaking': 2, annotation: 2 };
    const changelog: Changelog = {
      sections: [
        {
          title: 'Unreleased',
          date: '',
          previous: '1.0.0',
          counts,
          groups: (['warning', 'non-breaking', 'annotation'] as const).map((classification) => ({
            classification,
            changes: changes.filter((c) => c.classification === classification),
          })),
        },
        {
          title: '1.0.0',
          date: '2026-11-25',
          previous: undefined,
          counts: { ...counts, warning: 0, 'non-breaking': 0, annotation: 0 },
          groups: [],
        },
      ],
    };
    const reviews = [
      { kind: 'enum-value-added', pointer: '/components/schemas/Status/enum/3', reason: 'only sent to clients that asked for it' },
    ];

    it('the headline names the breaking and additive counts, never the annotations, and says the risky ones were reviewed', () => {
      const [unreleased, first] = changelogView(changelog, reviews);
      expect(unreleased!.headline).toBe(
        '0 breaking changes, 1 change that can affect strict clients only and 2 additions. It was reviewed and kept within this major version; the reason is given below.',
      );
      expect(unreleased!.headline).not.toMatch(/annotation|documentation/i);
      expect(first!.headline).toBe('');
      expect(changelogView(changelog, [])[0]!.headline).toBe(
        '0 breaking changes, 1 change that can affect strict clients only and 2 additions.',
      );
      expect(changelogHeadline({ breaking: 2, unclassified: 1, warning: 0, 'non-breaking': 1, annotation: 40 }, 0)).toBe(
        '2 breaking changes, 1 change still to review and 1 addition.',
      );
    });

    it('each change that can break a client says what to do and, when reviewed, why it shipped', () => {
      const [unreleased] = changelogView(changelog, reviews);
      expect(unreleased!.strict).toEqual([
        {
          what: 'schema Status: enum value added: `LOST`',
          where: 'GET /things (response 200 (application/json))',
          todo: 'Accept values you do not know (treat them as "other"), or update your list of values.',
          reviewed: 'only sent to clients that asked for it',
        },
      ]);
      expect(unreleased!.additions.map((a) => a.todo)).toEqual(['', '']);
      // reviews are the allow file's, which covers the unreleased changes only
      const released = changelogView({ sections: [{ ...changelog.sections[0]!, title: '1.1.0' }] }, reviews);
      expect(released[0]!.strict[0]!.reviewed).toBe('');
    });

    it('documentation changes are counted in a folded list and named, not quoted', () => {
      const html = renderDocsSite(input({ changelog, changelogReviewed: reviews })).get('changelog.html') ?? '';
      const text = html.replace(/<[^>]+>/g, '');
      expect(html).toMatch(/<details>\s*<summary>2 documentation changes \(descriptions, examples, tags\)/);
      expect(text).not.toContain('Old words');
      expect(html).toContain('Description changed: <code>openapi#/components/schemas/Thing</code>');
      // the headline precedes every table; the risky ones come before the additions
      const headline = html.indexOf('class="headline"');
      expect(headline).toBeGreaterThan(0);
      expect(headline).toBeLessThan(html.indexOf('<table'));
      expect(html.indexOf('Changes that affect strict clients only')).toBeLessThan(html.indexOf('<h3>Additions</h3>'));
      expect(html).toContain('<strong>Reviewed:</strong> only sent to clients that asked for it');
      expect(text).not.toMatch(/annotation/i);
    });

    it('what to do follows the kind of change and the direction it flows', () => {
      const use = (direction: 'request' | 'response') => [{ where: 'POST /things', in: 'request body', direction }];
      expect(changelogTodo({ classification: 'breaking', kind: 'property-removed', uses: use('request') })).toBe(
        'Stop sending it before you upgrade.',
      );
      expect(changelogTodo({ classification: 'breaking', kind: 'property-removed', uses: use('response') })).toBe(
        'Stop relying on it before you upgrade.',
      );
      expect(changelogTodo({ classification: 'breaking', kind: 'maxLength-changed', uses: use('request') })).toMatch(/requests you send/);
      expect(changelogTodo({ classification: 'warning', kind: 'default-changed', uses: use('request') })).toMatch(/old default/);
      expect(changelogTodo({ classification: 'non-breaking', kind: 'property-added', uses: use('response') })).toBe('');
    });
  });

  it('sorts the webhooks of the embedded document by name (Redoc lists them in document order)', () => {
    const doc = {
      openapi: '3.1.0',
      info: { title: 'T', version: '1' },
      paths: {},
      webhooks: { b_event: { post: {} }, A_EVENT: { post: {} }, a_event: { post: {} } },
    };
    const site = renderDocsSite(input({ bundledDocument: doc }));
    expect(Object.keys((JSON.parse(site.get(SPEC_JSON)!) as { webhooks: object }).webhooks)).toEqual(['A_EVENT', 'a_event', 'b_event']);
    expect(Object.keys(withSortedWebhooks(doc))).toEqual(Object.keys(doc));
    expect(withSortedWebhooks({ paths: {} })).toEqual({ paths: {} });
  });

  it('the events page lists events by name, sent ones before planned ones', () => {
    const html = page('events.html');
    expect(html.indexOf('id="MERCHANT_APPROVED"')).toBeLessThan(html.indexOf('id="PAYMENT_FAILED"'));
  });

  it("the site's Redoc bundle names a local image for its credit, not Redocly's CDN (D136)", () => {
    const bundle = readFileSync(createRequire(import.meta.url).resolve('redoc/bundles/redoc.standalone.js'), 'utf8');
    const { text, replaced } = withLocalRedocLogo(bundle);
    expect(replaced).toBe(1);
    expect(text).not.toContain(REDOC_CDN_LOGO);
    expect(text).not.toMatch(/https:\/\/cdn\./);
    expect(text).toContain('src:"data:image/svg+xml,');
  });

  it('strict mode: a template naming a missing field fails', () => {
    const broken = { ...templates, errors: '{{#> docs-layout}}{{#each errors}}{{nope}}{{/each}}{{/docs-layout}}' };
    expect(() => renderDocsSite(input({ templates: broken }))).toThrow(/nope/);
  });
});

describe('the docs site as an emitter of the pipeline (Paygate spec)', async () => {
  const result = await generate({
    rootDir: ROOT,
    openapi: 'openapi/openapi.yaml',
    asyncapi: 'openapi/asyncapi.yaml',
    lint: 'skip',
    targets: ['docs'],
  });
  const file = (name: string) => result.files.find((f) => f.path === `docs/site/${name}`)!.contents;

  it('writes the pages and the embedded document (only the docs target)', () => {
    const pages = ['decisions.html', 'diagrams.html', 'errors.html', 'events.html', 'index.html', 'operations.html', 'schemas.html'];
    const scripts = [
      REDOC_INIT_SCRIPT,
      SPEC_JSON,
      SPEC_SCRIPT,
      'site.js',
      'try-it.js',
      'search-index.js',
      'minisearch.js',
      'minisearch.LICENSE.txt',
    ];
    // one pre-rendered page per operation (the light reference, D388)
    const operations = result.model.operations.map((o) => `operation-${o.operationId}.html`);
    expect(operations.length).toBeGreaterThan(30);
    expect(result.files.map((f) => f.path).sort()).toEqual([...pages, ...scripts, ...operations].map((f) => `docs/site/${f}`).sort());
  });

  it('takes every event from the spec (webhooks + AsyncAPI): category, format, fields, example (no planned events left)', () => {
    const events = eventEntries(result.model);
    expect(events.map((e) => [e.name, e.category, e.status, e.eventTimeFormat])).toEqual([
      ['MERCHANT_APPROVED', 'Onboarding', 'emitted', 'YYYY-MM-DD HH:MM:SS'],
      ['PAYMENT_CAPTURED', 'Payment', 'emitted', 'YYYY-MM-DD HH:MM:SSZ'],
      ['PAYMENT_FAILED', 'Payment', 'emitted', 'YYYY-MM-DD HH:MM:SSZ'],
      ['PAYMENT_SETTLED', 'Settlement', 'emitted', 'YYYY-MM-DD HH:MM:SS'],
      ['REFUND_FAILED', 'Refund', 'emitted', 'YYYY-MM-DD HH:MM:SSZ'],
      ['REFUND_PROCESSED', 'Refund', 'emitted', 'YYYY-MM-DD HH:MM:SSZ'],
      // D210: the return-URL callback of createOrder, known by its name (its form has no event_type)
      ['returnUrl', 'Orders', 'emitted', ''],
    ]);
    const returnUrl = events.find((e) => e.name === 'returnUrl')!;
    expect(returnUrl).toMatchObject({
      sources: ['Callback `returnUrl` of `createOrder` (`POST /pg/orders/`): a `POST` to `{$request.body#/return_url}`.'],
      payload: 'Payload: `application/x-www-form-urlencoded`, schema `ReturnUrlCallback`.',
      fieldsOf: 'payload',
      discriminated: false,
    });
    expect(returnUrl.fields.map((f) => f.name)).toContain('hash');
    const failed = events.find((e) => e.name === 'PAYMENT_FAILED')!;
    expect(failed.fields.map((f) => f.name)).toEqual([
      'status',
      'message',
      'mop_type',
      'order_id',
      'payment_id',
      'bank_ref_num',
      'payment_completed_at',
    ]);
    expect(failed.fields[0]).toEqual({ name: 'status', type: 'string', required: true, description: 'Always `FAILED`.' });
    expect(failed.example).toMatchObject({ event_type: 'PAYMENT_FAILED', data: { status: 'FAILED' } });
    const settled = events.find((e) => e.name === 'PAYMENT_SETTLED')!;
    expect(settled.fields.map((f) => f.name)).toContain('settlements[].settlement_utr');
    // every webhook event's field is described (the return-URL form's fields are described by its schema's hash rule)
    for (const e of events.filter((x) => x.status === 'emitted' && x.discriminated))
      for (const f of e.fields) expect(f.description, `${e.name} ${f.name}`).not.toBe('');
  });

  it('documents the envelope and the signature headers from the spec', () => {
    const guide = webhookGuide(result.model);
    expect(guide.envelope.map((f) => [f.name, f.type])).toEqual([
      ['event_type', 'string'],
      ['event_time', 'string'],
      ['version', 'string'],
      ['sequence_number', 'string (UUID)'],
      ['data', 'object'],
    ]);
    for (const f of guide.envelope) expect(f.description, f.name).not.toBe('');
    expect(guide.headers.map((h) => h.name)).toEqual(['webhook-id', 'webhook-timestamp', 'webhook-signature']);
    const html = file('events.html');
    expect(html).toContain('id="PAYMENT_SETTLED"');
    expect(html).toContain('id="REFUND_FAILED"'); // emitted since D77: a section, not a planned event
    expect(html).not.toContain('Planned events');
  });

  it('refuses an error catalogue that drifted from the spec', async () => {
    const errorsMarkdown = read('docs/errors.md').replace(/^\| `?ERR_WEBHOOK_404.*\n/m, '');
    const docs = { errorsMarkdown, ...readDecisionsSource(ROOT), templates };
    await expect(
      generate({
        rootDir: ROOT,
        openapi: 'openapi/openapi.yaml',
        asyncapi: 'openapi/asyncapi.yaml',
        lint: 'skip',
        targets: ['docs'],
        docs,
      }),
    ).rejects.toThrow(/only in the spec \[ERR_WEBHOOK_404\]/);
  });
});

describe("docs in the API's own words (D125)", () => {
  it('a non-Paygate spec (Shelf) gets no Paygate prose and no empty events, errors or decisions pages; its reference, search and samples', async () => {
    const empty = (header: string) => `| ${header} |\n| --- |\n`;
    const docs = {
      errorsMarkdown: empty('Code | HTTP | When | details keys | What the client should do'),
      decisionsMarkdown: empty('# | Seed says | Decision | Reason | Anchor'),
      templates: readDocsTemplates(path.join(ROOT, 'generators/templates')),
    };
    const result = await generate({
      rootDir: ROOT,
      openapi: 'test/fixtures/shelf/openapi.yaml',
      asyncapi: null,
      lint: 'skip',
      targets: ['docs'],
      docs,
    });
    const pages = result.files.filter((f) => f.path.endsWith('.html'));
    // the light reference and search for any spec (D388 light reference pages without Redoc; D389 one offline search built with the site); no diagrams page without x-state-machine
    const operations = result.model.operations.map((o) => `operation-${o.operationId}.html`);
    expect(pages.map((f) => path.basename(f.path)).sort()).toEqual(['index.html', 'operations.html', 'schemas.html', ...operations].sort());
    for (const f of pages) {
      expect(f.contents).not.toMatch(/Paygate|whsec_|"success": false|merchant/i);
      expect(f.contents).not.toMatch(/events\.html|errors\.html|decisions\.html|diagrams\.html/);
      expect(f.contents).toContain('id="site-search"');
    }
    const index = result.files.find((f) => f.path.endsWith('/search-index.js'))!.contents;
    for (const op of result.model.operations) expect(index).toContain(`"${op.operationId}"`);
    // deterministic: the same input renders the same site, byte for byte
    const again = await generate({
      rootDir: ROOT,
      openapi: 'test/fixtures/shelf/openapi.yaml',
      asyncapi: null,
      lint: 'skip',
      targets: ['docs'],
      docs,
    });
    expect(again.files).toEqual(result.files);
  });
});

describe('inlineHtml', () => {
  it('escapes text and code spans alike', () => {
    expect(inlineHtml('a `<b>` & c')).toBe('a <code>&lt;b&gt;</code> &amp; c');
    expect(inlineHtml('unpaired ` tick')).toBe('unpaired &#x60; tick');
  });
});

describe('markdown sources', () => {
  it('reads decisions tables under the current header and the earlier one', () => {
    const row = '| A1 | "x: not shown" | d | r | a |';
    const current = parseDecisions(
      `## A\n\n| # | The original specification says | Decision | Reason | Anchor |\n|---|---|---|---|---|\n${row}\n`,
    );
    const legacy = parseDecisions(`## A\n\n| # | Seed says | Decision | Reason | Anchor |\n|---|---|---|---|---|\n${row}\n`);
    expect(current).toEqual(legacy);
    expect(current[0]).toMatchObject({ id: 'A1', group: 'A', specSays: '"x: not shown"' });
  });

  it('parses pipe tables, including escaped pipes', () => {
    const [table] = parseMarkdownTables('## H\n\n| a | b |\n|---|---|\n| x \\| y | `z` |\n\ntext\n');
    expect(table).toEqual({ heading: 'H', header: ['a', 'b'], rows: [['x | y', '`z`']] });
  });

  it("docs/errors.md lists exactly the brief's error codes", () => {
    const codes = parseErrorCatalogue(read('docs/errors.md')).map((e) => `${e.code} ${e.status}`);
    expect(codes).toEqual([
      'ERR_VALIDATION_400 400',
      'ERR_AUTH_000 401',
      'ERR_AUTH_403 403',
      'ERR_REQUEST_404 404',
      'ERR_REQUEST_405 405',
      'ERR_REQUEST_413 413',
      'ERR_REQUEST_415 415',
      'ERR_MERCHANT_404 404',
      'ERR_MERCHANT_422 422',
      'ERR_ORDER_404 404',
      'ERR_ORDER_409 409',
      'ERR_ORDER_422 422',
      'ERR_PAYMENT_404 404',
      'ERR_REFUND_404 404',
      'ERR_REFUND_422 422',
      'ERR_SETTLEMENT_404 404',
      'ERR_WEBHOOK_404 404',
      'ERR_IDEMPOTENCY_409 409',
      'ERR_IDEMPOTENCY_422 422',
      'ERR_RATE_429 429',
      'ERR_INTERNAL_500 500',
      'ERR_UNAVAILABLE_503 503',
    ]);
  });

  it('the decision records have unique ids and cover every `not shown` of the original specification', () => {
    const decisions = readDecisionRecords(path.join(ROOT, 'docs/decisions'));
    const ids = decisions.map((d) => d.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const d of decisions) {
      for (const value of [d.specSays, d.decision, d.reason, d.anchor]) expect(value, d.id).not.toBe('');
    }
    const notShown = decisions.filter((d) => d.specSays.includes('not shown'));
    // The original specification marks 22 places (its introduction defines the phrase); some places hold several items.
    expect(notShown.length).toBeGreaterThanOrEqual(22);
  });
});

describe('event fields from the typed nodes (D479)', () => {
  it('lists a recursive array of objects once per branch, and a 3.0 nullable field as its 3.1 spelling', () => {
    const model = buildModel(
      {
        openapi: '3.1.0',
        info: { title: 'Trees', version: '1' },
        paths: {},
        webhooks: {
          tree: { post: { requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Tree' } } } } } },
        },
        components: {
          schemas: {
            Tree: {
              type: 'object',
              required: ['name'],
              properties: {
                name: { type: 'string', nullable: true },
                children: { type: 'array', items: { $ref: '#/components/schemas/Tree' } },
              },
            },
          },
        },
      },
      { source: 'trees.yaml' },
    );
    expect(eventEntries(model)[0]!.fields.map((f) => `${f.name}: ${f.type}`)).toEqual(['name: string | null', 'children: array']);
  });
});
