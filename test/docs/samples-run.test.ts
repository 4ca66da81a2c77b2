/**
 * The docs' samples of a few Paygate operations, run as a reader would paste them (D385 docs samples from the spec): the curl command in bash
 * and the TypeScript sample with tsx, against an in-process sandbox gateway, with the reader's environment
 * (`PAYGATE_URL`, `PAYGATE_CLIENT_ID`, `PAYGATE_CLIENT_SECRET`) set to a sandbox merchant's credentials. Only an id the
 * reader would paste from an earlier answer is replaced (the example order id by the one just created).
 */
import { execFile } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operationSamples, type CodeSample } from '../../generators/src/emit/docs-samples.js';
import { generate, readDocsSources } from '../../generators/src/pipeline.js';
import { clientFor, onboardMerchant, type MerchantAccess } from '../faults/helpers/api.js';
import { ROOT } from '../generators/fixtures.js';
import { startGateway, type Gateway } from '../support/gateway.js';

const run = promisify(execFile);

describe("Paygate's docs samples run against a sandbox gateway", () => {
  let gw: Gateway;
  let merchant: MerchantAccess;
  let samples: Map<string, CodeSample[]>;
  const dir = path.join(ROOT, `.paygate/docs-samples-run-${process.pid}`);

  beforeAll(async () => {
    const result = await generate({
      rootDir: ROOT,
      openapi: 'openapi/openapi.yaml',
      asyncapi: null,
      lint: 'skip',
      targets: ['docs'],
      out: { docs: 'site' },
      docs: readDocsSources(ROOT),
    });
    const document = JSON.parse(result.files.find((f) => f.path === 'site/openapi.json')!.contents) as Record<string, unknown>;
    samples = new Map(operationSamples(result.model, document).map((o) => [o.operationId, o.samples]));
    gw = await startGateway({ target: 'pglite' });
    merchant = await onboardMerchant(gw.baseUrl, clientFor(gw.baseUrl, gw.partner), 'Sample Shop');
    await mkdir(dir, { recursive: true });
  }, 180_000);

  afterAll(async () => {
    await gw?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const env = () => ({
    ...process.env,
    PAYGATE_URL: gw.baseUrl,
    PAYGATE_CLIENT_ID: merchant.credentials.clientId,
    PAYGATE_CLIENT_SECRET: merchant.credentials.clientSecret,
  });
  const sample = (operationId: string, label: string): string => {
    const found = samples.get(operationId)?.find((s) => s.label === label);
    if (found === undefined) throw new Error(`no ${label} sample for ${operationId}`);
    return found.source;
  };
  const curl = async (operationId: string, edit: (s: string) => string = (s) => s): Promise<unknown> => {
    // -s only hides curl's progress meter (stderr); the command is the sample's own
    const { stdout } = await run('bash', ['-c', edit(sample(operationId, 'curl')).replace(/^curl /, 'curl -s ')], {
      env: env(),
      timeout: 60_000,
    });
    return JSON.parse(stdout);
  };
  const typescript = async (operationId: string, edit: (s: string) => string = (s) => s): Promise<string> => {
    const file = path.join(dir, `${operationId}.ts`);
    await writeFile(file, edit(sample(operationId, '@paygate/client')));
    const tsx = path.join(ROOT, 'node_modules/.bin/tsx');
    // the published package resolves to its sources here (no build needed), as in every test of this repository
    const { stdout } = await run(tsx, ['--conditions=source', file], { env: env(), cwd: ROOT, timeout: 120_000 });
    return stdout;
  };

  it('curl createOrder creates an order; curl getOrder and the TypeScript getOrder read it back', async () => {
    const created = (await curl('createOrder')) as { success: boolean; data: { order_id: string; session_id?: string } };
    expect(created.success).toBe(true);
    const orderId = created.data.order_id;
    expect(orderId).toMatch(/\S/);
    // the reader pastes the id they got in place of the example's
    const example = /\/pg\/orders\/([^"/?]+)"/.exec(sample('getOrder', 'curl'))?.[1];
    expect(example).toBeDefined();
    const read = (await curl('getOrder', (s) => s.replace(example!, orderId))) as { data: { order_id: string; status: string } };
    expect(read.data).toMatchObject({ order_id: orderId, status: 'payment_pending' });
    const out = await typescript('getOrder', (s) => s.replace(`"${example!}"`, JSON.stringify(orderId)));
    expect(out).toMatch(/^200 /);
    expect(out).toContain(orderId);
    expect(out).toContain('payment_pending');
  }, 180_000);

  it('the TypeScript listPayments and createOrder samples answer 200', async () => {
    expect(await typescript('listPayments')).toMatch(/^200 /);
    // a merchant's reference_id is unique: the curl run above used the example's, so the reader picks another
    const out = await typescript('createOrder', (s) => s.replace('ORDER-2026-000123', 'ORDER-2026-SAMPLE-TS'));
    expect(out).toMatch(/^200 /);
    expect(out).toMatch(/order_id: 'OD\d+'/);
  }, 180_000);
});
