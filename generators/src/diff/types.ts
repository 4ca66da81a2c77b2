/** What a change means for an integrated client (merchant), in the direction the data flows. */
export type Classification = 'breaking' | 'non-breaking' | 'annotation';

export const CLASSIFICATIONS: readonly Classification[] = ['breaking', 'non-breaking', 'annotation'];

/** Which document a change's pointer points into. */
export type SpecDocument = 'openapi' | 'asyncapi';

export interface Change {
  classification: Classification;
  /** `<subject>-<verb>`, e.g. `property-removed`, `enum-value-added`, `maxLength-changed`: what allow entries match on. */
  kind: string;
  document: SpecDocument;
  /**
   * JSON pointer of the changed node in the bundled document: where a `$ref` was followed, the pointer of its target
   * (e.g. `/components/schemas/Order/properties/note`), so one schema change used twice has one pointer.
   */
  pointer: string;
  /** JSON pointer of the place a client meets the change, through `$ref`s (e.g. `/paths/~1orders/post/requestBody/...`). */
  location: string;
  /** One human sentence: where, what, and why it is (not) breaking. */
  message: string;
  before?: unknown;
  after?: unknown;
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
