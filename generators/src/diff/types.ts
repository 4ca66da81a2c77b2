/**
 * What a change means for an integrated client, in the direction the data flows (D54 changes judged in the direction data flows; D103 versions compared by meaning after normalisation):
 *
 * - `breaking`: a client written against the old contract fails (a request it sends is refused, a response or event
 *   it reads lacks what it relied on or carries a type it cannot read);
 * - `unclassified`: the comparer cannot tell (a keyword it does not model changed): review it;
 * - `warning`: breaks only strict clients (a response enum widened, a limit loosened in a response, a new success
 *   status) or changes behaviour without refusing anything (a default changed, an undocumented field ignored);
 * - `non-breaking`: additions and relaxations a tolerant client ignores;
 * - `annotation`: descriptions, examples, tags, deprecations, extensions.
 */
export type Classification = 'breaking' | 'unclassified' | 'warning' | 'non-breaking' | 'annotation';

/** Most severe first: the order of report sections and of `--fail-on` levels (D105 five change classifications and --fail-on). */
export const CLASSIFICATIONS: readonly Classification[] = ['breaking', 'unclassified', 'warning', 'non-breaking', 'annotation'];

/** `--fail-on <level>`: fail on changes of this classification or a more severe one; `info` is any change, `none` never. */
export const FAIL_ON_LEVELS = ['breaking', 'unclassified', 'warning', 'info', 'none'] as const;
export type FailOn = (typeof FAIL_ON_LEVELS)[number];

export function failsOn(classification: Classification, level: FailOn): boolean {
  if (level === 'none') return false;
  if (level === 'info') return true;
  return CLASSIFICATIONS.indexOf(classification) <= CLASSIFICATIONS.indexOf(level);
}

/** Which document a change's pointer points into. */
export type SpecDocument = 'openapi' | 'asyncapi';

/** Where a client meets a change: an operation (or webhook, callback, event) and the part of it. */
export interface ChangeUse {
  /** `GET /orders`, `webhook ORDER_PAID`, `event PaymentFailed (channel webhookEndpoint)`. */
  where: string;
  /** `response 200 (application/json)`, `request body (application/json)`, `parameter limit`, `payload`, `security`. */
  in: string;
  /** `request`: the client writes it; `response`: the client reads it (responses, webhooks, callbacks, events). */
  direction: 'request' | 'response' | 'none';
}

export interface Change {
  classification: Classification;
  /** `<subject>-<verb>`, e.g. `property-removed`, `enum-value-added`, `maxLength-changed`: what allow entries match on. */
  kind: string;
  document: SpecDocument;
  /**
   * JSON pointer of the change where it is defined, in the document that has it (the new one, or the old one for a
   * removal): `/components/schemas/Order/properties/note`, whatever number of operations use `Order` (D104 one diff entry per change, at its definition).
   */
  pointer: string;
  /** One human sentence: where it is defined, what changed, and why it is (not) breaking. */
  message: string;
  /** Every operation, webhook, callback and event that reaches the change: `useCount` of them, the first few listed. */
  uses: ChangeUse[];
  useCount: number;
  before?: unknown;
  after?: unknown;
  /**
   * For a value added to or removed from a list of values (`enum`, or `oneOf`/`anyOf` of consts): the pointer of the
   * list. `pointer` names the value's position, which moves when a value is inserted before it, so allow entries name
   * the list and the value instead (D461, "Allow entries name an enum value by its list and value, never its position").
   */
  list?: string;
}

/** A message the merchant receives on an AsyncAPI channel. */
export interface EventMessage {
  /** Keys in the resolved AsyncAPI document: `/channels/<channel>/messages/<message>`. */
  channel: string;
  message: string;
  /** The message's `name` (e.g. `PAYMENT_FAILED`), else its key. */
  name: string;
  /** Resolved payload schema. */
  payload: unknown;
}

/** One version of the contract: the bundled OpenAPI document and the AsyncAPI messages (payloads resolved). */
export interface ContractSnapshot {
  /** A short name for messages: a file path, a git ref, `openapi/released/1.0.0.json`. */
  label: string;
  openapi: Record<string, unknown>;
  /** Every message of every AsyncAPI channel; `undefined` when the version has no AsyncAPI document. */
  events: EventMessage[] | undefined;
  /** The AsyncAPI document itself (bundled, refs resolved), kept so a release can store it. */
  asyncapi: Record<string, unknown> | undefined;
}
