import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  createEventCatalog,
  createEventValidator,
  type CompiledEventValidator,
  type EventCatalog,
  type WebhookValidationResult,
} from './event-validation.js';

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

describe('createEventCatalog (D212: events by discriminator or by name)', () => {
  type Pong = { kind: 'PONG' };
  type Form = { order_id: string };
  type Events = { PING: Ping; PONG: Pong; returnUrl: Form };
  const accept = (check: (data: unknown) => boolean): CompiledEventValidator =>
    Object.assign((data: unknown) => check(data), { errors: null });
  const validators = {
    PING: ping,
    PONG: accept((d) => (d as { kind?: unknown }).kind === 'PONG'),
    returnUrl: accept((d) => typeof (d as { order_id?: unknown }).order_id === 'string'),
  };
  const catalog = createEventCatalog<Events>(validators, 'kind', ['PING', 'PONG']);

  it('finds a union member by its discriminator and names it', () => {
    expect(catalog.validate({ kind: 'PING', n: 1 })).toEqual({ ok: true, name: 'PING', event: { kind: 'PING', n: 1 } });
    expect(catalog.names).toEqual(['PING', 'PONG', 'returnUrl']);
  });

  it.each([
    ['an event known by name only is not found by the body', { order_id: 'OD1' }, "must have required property 'kind'"],
    ['a discriminator value of no event', { kind: 'returnUrl' }, 'must be equal to one of the allowed values: PING, PONG'],
  ])('%s', (_name, input, message) => {
    expect(catalog.validate(input)).toMatchObject({ ok: false, errors: [{ message }] });
  });

  it('validates an event known by name on the route that receives it (only), or by validateAs', () => {
    const route = catalog.only('returnUrl');
    expect(route.validate({ order_id: 'OD1' })).toEqual({ ok: true, name: 'returnUrl', event: { order_id: 'OD1' } });
    expect(route.validate({ order_id: 1 })).toMatchObject({ ok: false });
    expect(catalog.validateAs('returnUrl', { order_id: 'OD1' })).toEqual({ ok: true, event: { order_id: 'OD1' } });
    expectTypeOf(catalog.validateAs('returnUrl', {})).toEqualTypeOf<WebhookValidationResult<Form>>();
    expectTypeOf(route).toEqualTypeOf<EventCatalog<{ returnUrl: Form }>>();
    // @ts-expect-error not an event of this API
    expect(() => catalog.only('nope')).toThrow(/unknown: nope/);
  });

  it('without a discriminator, a body is told apart only when the catalog has one event', () => {
    const byName = createEventCatalog<{ a: Form; b: Form }>({ a: validators.returnUrl, b: validators.returnUrl }, null, []);
    expect(byName.validate({ order_id: 'x' })).toMatchObject({ ok: false, errors: [{ message: /cannot tell which of a, b this is/ }] });
    expect(byName.only('b').validate({ order_id: 'x' })).toEqual({ ok: true, name: 'b', event: { order_id: 'x' } });
    expect(createEventValidator<never>(validators, null, [])({})).toMatchObject({
      ok: false,
      errors: [{ message: /validate each by its name/ }],
    });
  });

  it('types: the result names the event and narrows its payload', () => {
    const result = catalog.validate({});
    if (result.ok && result.name === 'PING') expectTypeOf(result.event).toEqualTypeOf<Ping>();
    if (result.ok && result.name === 'returnUrl') expectTypeOf(result.event).toEqualTypeOf<Form>();
  });
});
