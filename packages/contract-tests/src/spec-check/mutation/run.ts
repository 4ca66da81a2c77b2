/**
 * One mutation-test run (D278 mutants of the reference gateway): an in-process reference gateway on PGlite (its worker running, so webhook deliveries
 * exist), a partner and a merchant credential, and `checkApi` with nothing else: the spec, the base URL, the two
 * credential sets and which one is a tenant. `failFast`: a mutant is killed by its first failure.
 */
import { apiDocument } from '@paygate/contract';
import { startGateway } from '../../support/gateway.js';
import { checkApi } from '../check-api.js';
import type { ApiCheckReport, CheckName } from '../types.js';

export type Mode = 'sandbox' | 'production';

export interface MutantRun {
  report: ApiCheckReport;
  /** Every response body the run received, joined (what reached the client). */
  wire: string;
}

const MERCHANT = {
  settlement_details: {
    bank_account_number: '50100123456789',
    bank_account_name: 'Mutant Test Ltd',
    bank_swift_code: 'HDFCINBBXXX',
    bank_name: 'HDFC Bank',
    bank_branch_name: 'Fort',
    bank_address: '1 Test Road',
    bank_city: 'Mumbai',
    bank_state: 'Maharashtra',
    bank_country: 'IN',
    bank_pincode: '400001',
    routing_number: 'HDFC0000060',
  },
};

/** The checker against a gateway in `mode` (sandbox: responses validated by the app; production: NODE_ENV=production's serializers). */
export async function runChecker(
  mode: Mode,
  options: { failFast: boolean; activate?: () => void; checks?: readonly CheckName[] },
): Promise<MutantRun> {
  const gw = await startGateway({ target: 'pglite', startWorker: true, validateResponses: mode === 'sandbox' });
  try {
    const partner = { 'X-Client-ID': gw.partner.clientId, 'X-Client-Secret': gw.partner.clientSecret, 'Content-Type': 'application/json' };
    const example = (
      apiDocument as {
        paths: Record<string, Record<string, { requestBody: { content: Record<string, { example: Record<string, unknown> }> } }>>;
      }
    ).paths['/partners/merchants/']!['post']!.requestBody.content['application/json']!.example;
    const post = async (path: string, body?: unknown) => {
      const res = await fetch(`${gw.baseUrl}${path}`, {
        method: 'POST',
        headers: partner,
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      const json = (await res.json()) as { data: Record<string, string> };
      if (!res.ok) throw new Error(`setting up the merchant credential: POST ${path} -> ${res.status} ${JSON.stringify(json)}`);
      return json.data;
    };
    const merchant = await post('/partners/merchants/', { ...example, ...MERCHANT });
    await post(`/sandbox/merchants/${merchant['id']}/kyc`, { status: 'APPROVED' });
    const creds = await post(`/partners/merchants/${merchant['id']}/credentials`);
    const bodies: string[] = [];
    const recording: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      const text = await res.clone().text();
      bodies.push(text);
      return res;
    };
    // the defect is planted now: the credentials above are the user's, made before the deployment went wrong
    options.activate?.();
    const report = await checkApi({
      document: apiDocument as unknown as Record<string, unknown>,
      baseUrl: gw.baseUrl,
      credentials: [
        { name: 'partner', auth: { ClientId: gw.partner.clientId, ClientSecret: gw.partner.clientSecret } },
        { name: 'merchant', auth: { ClientId: creds['client_id']!, ClientSecret: creds['client_secret']! } },
      ],
      tenants: ['merchant'],
      failFast: options.failFast,
      ...(options.checks ? { checks: options.checks } : {}),
      fetch: recording,
    });
    return { report, wire: bodies.join('\n') };
  } finally {
    await gw.close();
  }
}
