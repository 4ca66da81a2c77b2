/**
 * Validating an untrusted, already-parsed webhook body against the schema of its event type, with the precompiled
 * validators the generator emits (generated/validators.gen.ts, bound in generated/index.ts). Hand-written and
 * type-checked here; the generated files only list the events.
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
 * A validator for the event union `E`: reads the discriminator, picks that event type's compiled validator, and
 * answers with the event (typed) or every error with its JSON Pointer. Unknown or missing event types are errors
 * naming the accepted ones.
 */
export function createEventValidator<E>(
  validators: Readonly<Record<string, CompiledEventValidator>>,
  discriminator: string,
  eventTypes: readonly string[],
): (input: unknown) => WebhookValidationResult<E> {
  return (input) => {
    if (typeof input !== 'object' || input === null || Array.isArray(input)) {
      return { ok: false, errors: [{ path: '', message: 'must be object' }] };
    }
    const eventType = (input as Record<string, unknown>)[discriminator];
    if (eventType === undefined) {
      return { ok: false, errors: [{ path: '', message: `must have required property '${discriminator}'` }] };
    }
    const validate = typeof eventType === 'string' && Object.hasOwn(validators, eventType) ? validators[eventType] : undefined;
    if (validate === undefined) {
      return {
        ok: false,
        errors: [{ path: `/${discriminator}`, message: `must be equal to one of the allowed values: ${eventTypes.join(', ')}` }],
      };
    }
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
  };
}
