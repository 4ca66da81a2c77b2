import type { Request } from 'express';
import { describe, expect, it, vi } from 'vitest';
import { operations, securitySchemes } from '../../../../../test/fixtures/mini/generated/contract/operations.gen.js';
import { HttpError, INVALID_CREDENTIALS, MISSING_CREDENTIALS } from '../errors.js';
import type { Logger, OperationRoute } from '../types.js';
import { type Authentication, createAuthentication } from './authenticate.js';

const logger = (): Logger => ({ info: vi.fn(), warn: vi.fn(), error: vi.fn() });
const op = (id: string): OperationRoute => operations.find((o) => o.operationId === id)!;
const request = (headers: Record<string, string>): Request => ({ headers, query: {} }) as unknown as Request;
// The mini spec: listMerchants, createOrder... need ClientId AND ClientSecret (apiKey headers); getHealth is public.
const both = { 'x-client-id': 'id-1', 'x-client-secret': 'secret-1' };

/** What the guard (rate-limit.ts) does with the two: the principal, or the refusal it answers. */
async function principalOf<T>(auth: Authentication<T>, req: Request, operation: OperationRoute): Promise<T> {
  try {
    return await auth.principal(req, operation);
  } catch (error) {
    throw auth.refused(error, req, operation);
  }
}

async function refusal(promise: Promise<unknown>): Promise<HttpError> {
  try {
    await promise;
  } catch (error) {
    return error as HttpError;
  }
  throw new Error('not refused');
}

describe('authenticate step', () => {
  it('refuses to start when an operation declares security no authenticator covers, naming the schemes to pass', () => {
    expect(() => createAuthentication(operations, securitySchemes, {}, logger())).toThrow(
      /declare security that no authenticator covers: .*listMerchants \(ClientId, ClientSecret\).*one per scheme: ClientId, ClientSecret/,
    );
    // a requirement is an AND of schemes: one of its two authenticators does not cover it
    expect(() => createAuthentication(operations, securitySchemes, { authenticators: { ClientId: () => 'p' } }, logger())).toThrow(
      /5 operation\(s\) declare security that no authenticator covers/,
    );
  });

  it('allowUnauthenticated: starts, logs an error naming each operation, and does not authenticate them', () => {
    const log = logger();
    const auth = createAuthentication(operations, securitySchemes, { allowUnauthenticated: true }, log);
    expect(log.error).toHaveBeenCalledWith(
      { operations: expect.arrayContaining(['listMerchants', 'createOrder']) },
      expect.stringContaining('WITHOUT AUTHENTICATION'),
    );
    expect(auth.authenticates(op('createOrder'))).toBe(false);
  });

  it('authenticates operations with security, never public ones', () => {
    const auth = createAuthentication<string>(operations, securitySchemes, { authenticate: () => 'p' }, logger());
    expect(auth.authenticates(op('createOrder'))).toBe(true);
    expect(auth.authenticates(op('getHealth'))).toBe(false);
  });

  describe('with one authenticator per scheme (D120)', () => {
    const auth = createAuthentication<string>(
      operations,
      securitySchemes,
      {
        authenticators: {
          ClientId: ({ credential }) => (credential === 'id-1' ? 'partner-1' : undefined),
          ClientSecret: ({ credential }) => (credential === 'secret-1' ? 'partner-1' : undefined),
        },
      },
      logger(),
    );

    it('the principal of the requirement whose authenticators all answer', async () => {
      await expect(principalOf(auth, request(both), op('createOrder'))).resolves.toBe('partner-1');
    });

    it('D219: missing credentials and invalid ones are told apart, and nothing says which scheme failed', async () => {
      const missing = await refusal(principalOf(auth, request({}), op('createOrder')));
      expect([missing.status, missing.code, missing.message]).toEqual([401, 'ERR_AUTH_000', MISSING_CREDENTIALS]);
      const invalid = await refusal(principalOf(auth, request({ ...both, 'x-client-secret': 'wrong' }), op('createOrder')));
      expect([invalid.status, invalid.message, invalid.details]).toEqual([401, INVALID_CREDENTIALS, undefined]);
    });
  });

  describe('with one `authenticate` hook for every scheme', () => {
    it('passes the operation, its requirements and the schemes', async () => {
      const hook = vi.fn(() => 'principal');
      const auth = createAuthentication<string>(operations, securitySchemes, { authenticate: hook }, logger());
      const req = request(both);
      await expect(principalOf(auth, req, op('createOrder'))).resolves.toBe('principal');
      expect(hook).toHaveBeenCalledWith({
        req,
        operation: op('createOrder'),
        requirements: op('createOrder').security,
        schemes: securitySchemes,
      });
    });

    it('an HttpError it throws is answered as it is; anything else is a 401 refusal', async () => {
      const forbidden = new HttpError(403, 'ERR_FORBIDDEN', 'not yours');
      const own = createAuthentication(operations, securitySchemes, { authenticate: () => Promise.reject(forbidden) }, logger());
      expect(await refusal(principalOf(own, request(both), op('createOrder')))).toBe(forbidden);
      const failing = createAuthentication(
        operations,
        securitySchemes,
        {
          authenticate: () => {
            throw new Error('database password is hunter2');
          },
        },
        logger(),
      );
      const error = await refusal(principalOf(failing, request(both), op('createOrder')));
      expect([error.status, error.message]).toEqual([401, INVALID_CREDENTIALS]);
    });
  });
});
