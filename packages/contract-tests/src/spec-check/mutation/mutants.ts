/**
 * The planted defects of the mutation test (D278 mutants of the reference gateway): each a small change of one function of the reference gateway, applied
 * through vitest module mocks (`mutants.*.test.ts` wrap the real module with {@link wrap}), switched on for one
 * in-process gateway at a time by `mutant.active`. A test-only injection point: mocks exist only inside vitest, the
 * gateway's code has no switch a deployment could turn on. The first eight are the defects issue 32 names (Schemathesis
 * found them given real ids); the last three are stateful defects no stateless checker finds.
 */
import type { Db } from '@paygate/reference';

export interface Mutant {
  name: string;
  /** What the defect is, as a reviewer would describe the bug. */
  defect: string;
  /** `equivalent`: in production mode the compiled serializer already keeps it off the wire (D142 compiled response serializers in production). */
  production: 'caught' | 'equivalent';
}

export const MUTANTS: readonly Mutant[] = [
  { name: 'renamed-response-field', defect: 'the order view writes reference_id as ref_id', production: 'caught' },
  { name: 'dropped-required-field', defect: 'the refund view drops refund_status', production: 'caught' },
  { name: 'leaked-secret-column', defect: 'the merchant view adds the credential hash column', production: 'equivalent' },
  { name: 'created-answers-200', defect: 'createMerchant answers 200 instead of 201', production: 'caught' },
  { name: 'server-error-at-range-maximum', defect: 'listPayments fails with page_size at its maximum 250', production: 'caught' },
  { name: 'auth-without-secret', defect: 'a client id without its secret is accepted', production: 'caught' },
  { name: 'wrong-content-type', defect: 'getRefund answers text/plain', production: 'caught' },
  { name: 'enum-outside-spec', defect: 'the payment view writes status SUCCESS (not in PaymentStatus)', production: 'caught' },
  { name: 'refund-above-captured', defect: 'a refund above the captured amount is accepted', production: 'caught' },
  { name: 'order-of-another-merchant', defect: "getOrder reads without the tenant's scope", production: 'caught' },
  { name: 'replay-runs-twice', defect: 'an Idempotency-Key replay runs the request again', production: 'caught' },
];

/** Which mutant the next gateway runs with (undefined: none). */
export const mutant: { active: string | undefined } = { active: undefined };

/** The planted value of the leaked column: the test asserts it never reaches the wire in production mode. */
export const LEAKED_SECRET = 'sha256$leaked-credential-hash-0f3a9c';

type Fn = (...args: never[]) => unknown;
type Module = Record<string, unknown>;
type Result = { status: number; body?: unknown; contentType?: string };

const on = (name: string) => mutant.active === name;
const call = (f: unknown, args: unknown[]) => (f as (...a: unknown[]) => unknown)(...args);

function wrapped(original: Module, name: string, around: (f: Fn, args: unknown[]) => unknown): Module {
  const f = original[name] as Fn;
  return { ...original, [name]: (...args: unknown[]) => around(f, args) };
}

function withHandler(original: Module, factory: string, operation: string, change: (r: Result, args: unknown[]) => Result): Module {
  return wrapped(original, factory, (f, args) => {
    const handlers = call(f, args) as Record<string, unknown>;
    return {
      ...handlers,
      [operation]: async (...a: unknown[]) => change((await call(handlers[operation], a)) as Result, a),
    };
  });
}

/** The mocked module of each mutated reference-gateway file, keyed by its path under packages/reference/src. */
export async function wrap(file: string, original: Module): Promise<Module> {
  switch (file) {
    case 'orders/view':
      return wrapped(original, 'orderView', (f, args) => {
        const out = call(f, args) as Record<string, unknown>;
        if (!on('renamed-response-field')) return out;
        const { reference_id, ...rest } = out;
        return { ...rest, ref_id: reference_id };
      });
    case 'refunds/view':
      return wrapped(original, 'refundView', (f, args) => {
        const out = call(f, args) as Record<string, unknown>;
        if (!on('dropped-required-field')) return out;
        const { refund_status: _dropped, ...rest } = out;
        return rest;
      });
    case 'merchants/view':
      return wrapped(original, 'merchantDetailsView', (f, args) => {
        const out = call(f, args) as Record<string, unknown>;
        return on('leaked-secret-column') ? { ...out, client_secret_hash: LEAKED_SECRET } : out;
      });
    case 'merchants/handlers':
      return withHandler(original, 'merchantHandlers', 'createMerchant', (r) => (on('created-answers-200') ? { ...r, status: 200 } : r));
    case 'payments/service':
      return wrapped(original, 'listPayments', (f, args) => {
        const filters = args[2] as { page_size?: number } | undefined;
        if (on('server-error-at-range-maximum') && filters?.page_size === 250) throw new Error('planted: the last page size overflows');
        return call(f, args);
      });
    case 'refunds/handlers':
      return withHandler(original, 'refundHandlers', 'getRefund', (r) =>
        on('wrong-content-type') ? { ...r, contentType: 'text/plain' } : r,
      );
    case 'payments/view':
      return wrapped(original, 'paymentView', (f, args) => {
        const out = call(f, args) as Record<string, unknown>;
        return on('enum-outside-spec') ? { ...out, status: 'SUCCESS' } : out;
      });
    case 'refunds/service':
      return wrapped(original, 'createRefund', async (f, args) => {
        if (!on('refund-above-captured')) return call(f, args);
        // the amount check skipped: whatever is asked is "refunded" (recorded as the least amount, reported as asked)
        const input = args[2] as { payment_id: string; refund_amount: string };
        const out = (await call(f, [args[0], args[1], { ...input, refund_amount: '0.01' }])) as Record<string, unknown>;
        return { ...out, refund_amount: Number(input.refund_amount) };
      });
    case 'orders/service':
      return wrapped(original, 'getOrder', (f, args) =>
        on('order-of-another-merchant') ? call(f, [args[0], null, args[2]]) : call(f, args),
      );
    case 'credentials/cache': {
      const Base = original['CredentialCache'] as new (
        db: Db,
        options: unknown,
      ) => { verify(id?: string, secret?: string): Promise<unknown> };
      class WithoutSecret extends Base {
        private readonly mutantDb: Db;
        constructor(db: Db, options: unknown) {
          super(db, options);
          this.mutantDb = db;
        }
        override async verify(id?: string, secret?: string): Promise<unknown> {
          if (on('auth-without-secret') && id && !secret) {
            const { rows } = await this.mutantDb.query<{ client_id: string; kind: string; partner_id: string; merchant_id: string | null }>(
              'SELECT client_id, kind, partner_id, merchant_id FROM credentials WHERE client_id = $1 AND revoked_at IS NULL',
              [id],
            );
            const row = rows[0];
            if (row)
              return {
                principal:
                  row.kind === 'merchant'
                    ? { kind: 'merchant', clientId: row.client_id, partnerId: row.partner_id, merchantId: row.merchant_id }
                    : { kind: 'partner', clientId: row.client_id, partnerId: row.partner_id },
                validUntil: null,
              };
          }
          return super.verify(id, secret);
        }
      }
      return { ...original, CredentialCache: WithoutSecret };
    }
    case '@paygate/contract': {
      const ids = original['idempotentOperationIds'] as ReadonlySet<string>;
      class Switchable extends Set<string> {
        override has(value: string): boolean {
          return on('replay-runs-twice') ? false : super.has(value);
        }
      }
      return { ...original, idempotentOperationIds: new Switchable(ids) };
    }
    default:
      throw new Error(`no mutant for ${file}`);
  }
}
