/**
 * Validating an untrusted, already-parsed webhook (or callback) body against the schema of its event, with the
 * precompiled validators the generator emits (generated/validators.gen.ts, bound in generated/index.ts). Hand-written
 * and type-checked here; the generated files only list the events.
 *
 * An event is found by the API's discriminator (a payload property naming it: Paygate's `event_type`, OpenAI's
 * `type`) or, for an API whose events carry none (or for one that is not in the union), by its name: the route or
 * callback that received it says which event it is (decision D212, "Events known by discriminator or by name").
 */

export interface WebhookValidationError {
  /** JSON Pointer of the offending value ('' = the event itself). */
  path: string;
  message: string;
}

export type WebhookValidationResult<E = unknown> = { ok: true; event: E } | { ok: false; errors: WebhookValidationError[] };

/** An Ajv standalone validate function (as generated). */
export interface CompiledEventValidator {
  (data: unknown): boolean;
  errors?: { instancePath: string; message?: string; keyword: string; params: Record<string, unknown> }[] | null;
}

/**
 * A validated event with its name (a key of the event map `M`), or every error with its JSON Pointer (and the name of
 * the event the body claimed to be, when it named one).
 */
export type EventValidationResult<M> =
  | { [K in keyof M & string]: { ok: true; name: K; event: M[K] } }[keyof M & string]
  | { ok: false; errors: WebhookValidationError[]; name?: keyof M & string };

/**
 * An API's events (`M`: event name -> payload type, the generated `WebhookEventMap`) and their validators: what
 * `createWebhookReceiver` dispatches with. The generated `webhookEvents` is one.
 */
export interface EventCatalog<M> {
  /** The payload property naming the event, or null: this API's events are known by name only. */
  readonly discriminator: string | null;
  /** Every event name, sorted. */
  readonly names: readonly (keyof M & string)[];
  /**
   * Which event `input` is, validated: the only event of this catalog, else the one its discriminator names. Errors
   * when neither tells (events known by name: restrict the catalog to the route's event with `only`).
   */
  validate(input: unknown): EventValidationResult<M>;
  /** `input` validated as the event `name` (the route, header or callback that received it names it). */
  validateAs<K extends keyof M & string>(name: K, input: unknown): WebhookValidationResult<M[K]>;
  /** The catalog of these events only: for a route (a callback URL) that receives just them. Throws on an unknown name. */
  only<K extends keyof M & string>(...names: K[]): EventCatalog<Pick<M, K>>;
}

function failure(path: string, message: string): { ok: false; errors: WebhookValidationError[] } {
  return { ok: false, errors: [{ path, message }] };
}

/** Runs one compiled validator: the event, or Ajv's errors as JSON Pointers and messages. */
function run<E>(validate: CompiledEventValidator, input: unknown): WebhookValidationResult<E> {
  if (validate(input)) return { ok: true, event: input as E };
  return {
    ok: false,
    errors: (validate.errors ?? []).map((e) => ({
      path: e.instancePath,
      message:
        e.keyword === 'additionalProperties' && typeof e.params['additionalProperty'] === 'string'
          ? `must NOT have additional property '${e.params['additionalProperty']}'`
          : (e.message ?? 'is invalid'),
    })),
  };
}

/** The name of the event `input`'s discriminator names among `eventTypes`, or the error saying why there is none. */
function discriminated(
  input: unknown,
  discriminator: string | null,
  eventTypes: readonly string[],
): { name: string } | { ok: false; errors: WebhookValidationError[] } {
  if (discriminator === null) {
    return failure('', "this API's events carry no property naming them: validate each by its name (validateEvent(name, body))");
  }
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return failure('', 'must be object');
  const value = (input as Record<string, unknown>)[discriminator];
  if (value === undefined) return failure('', `must have required property '${discriminator}'`);
  if (typeof value !== 'string' || !eventTypes.includes(value)) {
    return failure(`/${discriminator}`, `must be equal to one of the allowed values: ${eventTypes.join(', ')}`);
  }
  return { name: value };
}

/**
 * A validator for the event union `E`: reads the discriminator, picks that event type's compiled validator, and
 * answers with the event (typed) or every error with its JSON Pointer. Unknown or missing event types are errors
 * naming the accepted ones; an API without a discriminator (null) has no union, and every body is refused so.
 */
export function createEventValidator<E>(
  validators: Readonly<Record<string, CompiledEventValidator>>,
  discriminator: string | null,
  eventTypes: readonly string[],
): (input: unknown) => WebhookValidationResult<E> {
  const known = eventTypes.filter((t) => Object.hasOwn(validators, t));
  return (input) => {
    const found = discriminated(input, discriminator, known);
    return 'name' in found ? run<E>(validators[found.name]!, input) : found;
  };
}

/**
 * The catalog of an API's events: `validators` by event name, the discriminator (or null) and the names it
 * discriminates (the union's members; the other events are known by name only).
 */
export function createEventCatalog<M>(
  validators: Readonly<Record<string, CompiledEventValidator>>,
  discriminator: string | null,
  discriminatedNames: readonly string[],
): EventCatalog<M> {
  type Name = keyof M & string;
  const names = Object.keys(validators).sort() as Name[];
  const inUnion = discriminatedNames.filter((n) => Object.hasOwn(validators, n));
  const validateAs = <K extends Name>(name: K, input: unknown): WebhookValidationResult<M[K]> => {
    const validate = Object.hasOwn(validators, name) ? validators[name] : undefined;
    if (validate === undefined) return failure('', `unknown event ${JSON.stringify(name)}: one of ${names.join(', ')}`);
    return run<M[K]>(validate, input);
  };
  return {
    discriminator,
    names,
    validateAs,
    validate(input) {
      let name: string;
      if (names.length === 1) {
        name = names[0]!;
      } else if (discriminator === null || inUnion.length === 0) {
        return failure(
          '',
          `cannot tell which of ${names.join(', ')} this is: no property of the body names it. Receive each on its own route (only(name)).`,
        );
      } else {
        const found = discriminated(input, discriminator, inUnion);
        if (!('name' in found)) return found;
        name = found.name;
      }
      const result = validateAs(name as Name, input);
      return (result.ok ? { ok: true, name, event: result.event } : { ...result, name }) as EventValidationResult<M>;
    },
    only<K extends Name>(...subset: K[]): EventCatalog<Pick<M, K>> {
      const unknown = subset.filter((n) => !Object.hasOwn(validators, n));
      if (subset.length === 0 || unknown.length > 0) {
        throw new TypeError(`only() takes event names of this API (${names.join(', ')}); unknown: ${unknown.join(', ') || 'none given'}`);
      }
      const picked = Object.fromEntries(subset.map((n) => [n, validators[n]!]));
      return createEventCatalog<Pick<M, K>>(picked, discriminator, inUnion);
    },
  };
}
