/**
 * Type-level tests on the shapes fixtures' generated code (constructs of real-world specs). vitest runs them as
 * no-ops; `npx tsc -p tsconfig.json` checks them (every `@ts-expect-error` must be needed).
 */
import { describe, expectTypeOf, it } from 'vitest';
import type { ShapesClient } from '../fixtures/shapes/generated/client/index.js';
import type { components } from '../fixtures/shapes/generated/contract/index.js';
import type { GetShapesByShapeIdRequest, GetShapesByShapeIdResponse, Handlers } from '../fixtures/shapes/generated/server/handlers.gen.js';
import type { components as components31 } from '../fixtures/shapes31/generated/contract/index.js';
import type { PatchAccountsByAccountIdRequest } from '../fixtures/shapes31/generated/server/handlers.gen.js';
import type { WebhookEventType } from '../fixtures/shapes31/generated/webhooks/index.js';

type Schemas = components['schemas'];

describe('shapes (OpenAPI 3.0)', () => {
  it('discriminated oneOf: with a mapping the mapped values, without one the schema names', () => {
    expectTypeOf<Schemas['PaymentMethod']['kind']>().toEqualTypeOf<'card' | 'wallet'>();
    expectTypeOf<Extract<Schemas['PaymentMethod'], { kind: 'card' }>['last4']>().toEqualTypeOf<string>();
    expectTypeOf<Schemas['Shape']['shape_type']>().toEqualTypeOf<'Circle' | 'Square'>();
    // @ts-expect-error a Circle has no side
    const _notACircle: Schemas['Shape'] = { shape_type: 'Circle', side: 1 };
  });

  it('nullable (3.0), recursive schemas and odd names', () => {
    expectTypeOf<Schemas['Payer']['nickname']>().toEqualTypeOf<string | null | undefined>();
    expectTypeOf<Schemas['Payer']['tier']>().toEqualTypeOf<'gold' | 'silver' | null | undefined>();
    expectTypeOf<Schemas['Payer']['address']>().toEqualTypeOf<Schemas['Address'] | null | undefined>();
    expectTypeOf<NonNullable<Schemas['TreeNode']['children']>[number]>().toEqualTypeOf<Schemas['TreeNode']>();
    expectTypeOf<Schemas['2fa-Settings']['backup']>().toEqualTypeOf<Schemas['2fa-Settings'] | undefined>();
    expectTypeOf<Schemas['class']['new']>().toEqualTypeOf<number | undefined>();
  });

  it('operation-level parameters override path-level ones; non-JSON responses are typed by media type', () => {
    expectTypeOf<GetShapesByShapeIdRequest['query']['limit']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<GetShapesByShapeIdRequest['params']['shape-id']>().toEqualTypeOf<string>();
    expectTypeOf<Extract<GetShapesByShapeIdResponse, { contentType: 'text/plain' }>['body']>().toEqualTypeOf<string>();
  });

  it('handlers and client methods exist for reserved-word, leading-digit and derived operationIds', () => {
    expectTypeOf<keyof Handlers>().toEqualTypeOf<
      | 'import'
      | '2fa-upload'
      | 'listDroplets'
      | 'createPayer'
      | 'createPaymentMethod'
      | 'postShapes'
      | 'getShapesByShapeId'
      | 'deleteShapesByShapeId'
    >();
    expectTypeOf<keyof ShapesClient['files']>().toEqualTypeOf<'import' | '_2faUpload'>();
  });
});

describe('shapes31 (OpenAPI 3.1)', () => {
  it('type arrays', () => {
    expectTypeOf<components31['schemas']['Account']['closed_at']>().toEqualTypeOf<string | null | undefined>();
    expectTypeOf<components31['schemas']['Account']['balance']>().toEqualTypeOf<number | null | undefined>();
    expectTypeOf<PatchAccountsByAccountIdRequest['body']['limit']>().toEqualTypeOf<number | string | undefined>();
  });

  it('webhook event types from const discriminators', () => {
    expectTypeOf<WebhookEventType>().toEqualTypeOf<'account.closed' | 'contact.updated'>();
  });

  it('a page param, a results array and meta.total (DigitalOcean-style) page by number: listAll, items typed (D225)', () => {
    expectTypeOf<keyof ShapesClient['droplets']>().toEqualTypeOf<'list' | 'listAll'>();
    type Droplet = ReturnType<ShapesClient['droplets']['listAll']> extends AsyncIterableIterator<infer T> ? T : never;
    type Page = Extract<Awaited<ReturnType<ShapesClient['droplets']['list']>>, { ok: true }>['data'];
    expectTypeOf<Droplet>().toEqualTypeOf<NonNullable<Page['results']>[number]>();
  });
});
