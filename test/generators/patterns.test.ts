/**
 * Patterns valid only without the `u` flag (decision D60) judge values the same way everywhere they are compiled:
 * the generated request validators and webhook validators of the `shapes` / `shapes31` fixtures, and the contract
 * test tooling (Ajv over the embedded api-document, fast-check's stringMatching), all with `u`.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import AjvDraft7 from 'ajv';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { apiDocument as shapesDocument } from '../fixtures/shapes/generated/contract/api-document.gen.js';
import { requestValidators } from '../fixtures/shapes/generated/server/request-validators.gen.js';
import { apiDocument as shapes31Document } from '../fixtures/shapes31/generated/contract/api-document.gen.js';
import { validateWebhookEvent } from '../fixtures/shapes31/generated/webhooks/index.js';

type Obj = Record<string, unknown>;
const at = (root: unknown, ...keys: string[]): Obj => keys.reduce<Obj>((node, key) => node[key] as Obj, root as Obj);

const payerEmail = at(shapesDocument, 'components', 'schemas', 'Payer', 'properties', 'email');
const accountId = at(shapes31Document, 'components', 'schemas', 'AccountClosedEvent', 'properties', 'account_id');

/** The generated body validator of createPayer (precompiled Ajv, `u` patterns). */
function serverAccepts(email: string): boolean {
  const validate = requestValidators['createPayer']!.body!.content[0]!.validate;
  return validate({ body: { email } }) === true;
}

function webhookAccepts(account_id: string): boolean {
  return validateWebhookEvent({ event_type: 'account.closed', account_id }).ok;
}

/** What the contract tooling does: Ajv with its defaults (`u` patterns) over the embedded document. */
const toolingAjv3 = new AjvDraft7.default({ strict: false, validateSchema: false });
toolingAjv3.addSchema(shapesDocument as object, 'shapes.json');
const toolingAccepts3 = toolingAjv3.compile({ $ref: 'shapes.json#/components/schemas/Payer/properties/email' });
const toolingAjv31 = new Ajv2020({ strict: false, validateSchema: false });
toolingAjv31.addSchema(shapes31Document as object, 'shapes31.json');
const toolingAccepts31 = toolingAjv31.compile({ $ref: 'shapes31.json#/components/schemas/AccountClosedEvent/properties/account_id' });

describe('patterns valid only without u: one meaning in every consumer', () => {
  it('the embedded document carries the rewritten patterns (what every consumer reads)', () => {
    expect(() => new RegExp(payerEmail.pattern as string, 'u')).not.toThrow();
    expect(payerEmail.pattern).toContain('\\])');
    expect(accountId.pattern).toBe('acct_\\w+\\]?');
  });

  it.each([
    ['buyer@example.com', true],
    ['first.last+tag@sub.example.co', true],
    ['"quoted"@example.com', true],
    ['user@[192.168.0.1]', true],
    ['not an email', false],
    ['@example.com', false],
    ['a@', false],
  ])('e-mail %j: server validator, contract tooling and the original legacy regexp agree (%s)', (email, expected) => {
    const legacy = new RegExp(
      String.raw`(?:[a-zA-Z0-9!#$%&'*+/=?^_\`{|}~-]+(?:\.[a-zA-Z0-9!#$%&'*+/=?^_\`{|}~-]+)*|(?:[\x01-\x08\x0b\x0c\x0e-\x1f\x21\x23-\x5b\x5d-\x7f]|\[\x01-\x09\x0b\x0c\x0e-\x7f])*")@(?:(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?\.)+[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?|\[(?:(?:(2(5[0-5]|[0-4][0-9])|1[0-9][0-9]|[1-9]?[0-9]))\.){3}(?:(2(5[0-5]|[0-4][0-9])|1[0-9][0-9]|[1-9]?[0-9])|[a-zA-Z0-9-]*[a-zA-Z0-9]:(?:[\x01-\x08\x0b\x0c\x0e-\x1f\x21-\x5a\x53-\x7f]|\[\x01-\x09\x0b\x0c\x0e-\x7f])+)\])`,
    );
    // JSON Schema patterns are unanchored: 'not an email' fails because it has no '@' at all.
    expect(legacy.test(email)).toBe(expected);
    expect(serverAccepts(email)).toBe(expected);
    expect(toolingAccepts3(email)).toBe(expected);
  });

  it.each([
    ['acct_123', true],
    ['acct_123]', true],
    ['acct_', false],
    ['account', false],
  ])('account id %j: webhook validator and contract tooling agree (%s)', (id, expected) => {
    expect(new RegExp('acct_\\w+]?').test(id)).toBe(expected);
    expect(webhookAccepts(id)).toBe(expected);
    expect(toolingAccepts31(id)).toBe(expected);
  });

  it('values fast-check draws from a rewritten pattern (with u, as test/support/arbitraries.ts does) pass the generated validators', () => {
    fc.assert(
      fc.property(fc.stringMatching(new RegExp(accountId.pattern as string, 'u')), (id) => webhookAccepts(id) && toolingAccepts31(id)),
      { numRuns: 200 },
    );
    fc.assert(
      fc.property(fc.stringMatching(new RegExp(payerEmail.pattern as string, 'u')), (email) => email.length > 254 || serverAccepts(email)),
      { numRuns: 200 },
    );
  });
});
