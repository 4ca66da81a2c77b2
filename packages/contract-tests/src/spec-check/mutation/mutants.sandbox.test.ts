/**
 * The mutation test in sandbox mode (D278; the app validates its own responses): see suite.ts. The
 * mocks below plant the defects of mutants.ts (vi.mock is per test file, so each mode's file lists them).
 */
import { vi } from 'vitest';
import { wrap } from './mutants.js';
import { mutationSuite } from './suite.js';

vi.mock('../../../../reference/src/orders/view.ts', async (o) => wrap('orders/view', await o()));
vi.mock('../../../../reference/src/refunds/view.ts', async (o) => wrap('refunds/view', await o()));
vi.mock('../../../../reference/src/merchants/view.ts', async (o) => wrap('merchants/view', await o()));
vi.mock('../../../../reference/src/merchants/handlers.ts', async (o) => wrap('merchants/handlers', await o()));
vi.mock('../../../../reference/src/payments/service.ts', async (o) => wrap('payments/service', await o()));
vi.mock('../../../../reference/src/refunds/handlers.ts', async (o) => wrap('refunds/handlers', await o()));
vi.mock('../../../../reference/src/payments/view.ts', async (o) => wrap('payments/view', await o()));
vi.mock('../../../../reference/src/refunds/service.ts', async (o) => wrap('refunds/service', await o()));
vi.mock('../../../../reference/src/orders/service.ts', async (o) => wrap('orders/service', await o()));
vi.mock('../../../../reference/src/credentials/cache.ts', async (o) => wrap('credentials/cache', await o()));
vi.mock('@paygate/contract', async (o) => wrap('@paygate/contract', await o()));

mutationSuite('sandbox');
