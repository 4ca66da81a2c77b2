import { describe, expect, expectTypeOf, it } from 'vitest';
import { createEventValidator, type CompiledEventValidator, type WebhookValidationResult } from './event-validation.js';

type Ping = { kind: 'PING'; n: number };

const ping: CompiledEventValidator = Object.assign(
  (data: unknown) => {
    const ok = typeof (data as { n?: unknown }).n === 'number' && Object.keys(data as object).length === 2;
    ping.errors = ok
      ? null
      : [
          {
            instancePath: '',
            keyword: 'additionalProperties',
            params: { additionalProperty: 'x' },
            message: 'must NOT have additional properties',
          },
        ];
    return ok;
  },
  { errors: null },
);
const validate = createEventValidator<Ping>({ PING: ping }, 'kind', ['PING']);

describe('createEventValidator', () => {
  it.each([
    ['not an object', [], [{ path: '', message: 'must be object' }]],
    ['no discriminator', {}, [{ path: '', message: "must have required property 'kind'" }]],
    ['unknown event type', { kind: 'PONG' }, [{ path: '/kind', message: 'must be equal to one of the allowed values: PING' }]],
    [
      'schema errors, with the offending property named',
      { kind: 'PING', n: 1, x: 2 },
      [{ path: '', message: "must NOT have additional property 'x'" }],
    ],
  ])('%s', (_name, input, errors) => {
    expect(validate(input)).toEqual({ ok: false, errors });
  });

  it('answers the typed event', () => {
    const result = validate({ kind: 'PING', n: 1 });
    expectTypeOf(result).toEqualTypeOf<WebhookValidationResult<Ping>>();
    expect(result).toEqual({ ok: true, event: { kind: 'PING', n: 1 } });
  });
});
