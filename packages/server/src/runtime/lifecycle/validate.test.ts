import { describe, expect, it, vi } from 'vitest';
import { apiDocument } from '../../../../../test/fixtures/mini/generated/contract/api-document.gen.js';
import { operations, securitySchemes } from '../../../../../test/fixtures/mini/generated/contract/operations.gen.js';
import { requestValidators } from '../../../../../test/fixtures/mini/generated/server/request-validators.gen.js';
import type { ApiSpec } from './options.js';
import { checkValidators, validateResponseSteps, warnNotValidated } from './validate.js';

// What the request validators answer is tested in ../request-validation.differential.test.ts and test/server/; here,
// what the step decides at start-up.
const spec: ApiSpec = { apiDocument, operations, securitySchemes, requestValidators };

describe('validate step', () => {
  it('refuses to start without a validator for every operation, naming them and the fix', () => {
    expect(() => checkValidators(spec)).not.toThrow();
    const { getOrder: _, ...rest } = requestValidators;
    expect(() => checkValidators({ ...spec, requestValidators: rest })).toThrow(
      'createApp: request-validators.gen.ts has no validators for getOrder (npm run generate)',
    );
  });

  it('D198: a request part served without validation is said once at start-up, naming the operation', () => {
    const logger = { info: vi.fn(), warn: vi.fn(), error: vi.fn() };
    warnNotValidated(
      { ...spec, requestValidators: { ...requestValidators, getOrder: { ...requestValidators.getOrder!, notValidated: 'body' } } },
      logger,
    );
    expect(logger.warn).toHaveBeenCalledTimes(1);
    expect(logger.warn).toHaveBeenCalledWith({ operationId: 'getOrder' }, 'getOrder: request not validated: body');
  });

  it('response validation: one step when asked, none otherwise', () => {
    const logger = { info: vi.fn(), warn: vi.fn(), error: vi.fn() };
    const op = operations.find((o) => o.operationId === 'getOrder')!;
    expect(validateResponseSteps(spec, op, false, logger)).toEqual([]);
    expect(validateResponseSteps(spec, op, true, logger)).toHaveLength(1);
  });
});
