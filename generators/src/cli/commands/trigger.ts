/**
 * `paygate trigger EVENT_TYPE`: make a sandbox gateway emit a real event (D81) by creating what it announces, through
 * the API: a merchant and its KYC approval, an order completed through the sandbox, a settlement run, a refund
 * completed through the sandbox. Pairs with `paygate listen`.
 */
import { parseArgs } from 'node:util';
import { EventType } from '@paygate/contract';
import { EXIT, UsageError, type CliCommand } from '../command.js';
import { GATEWAY_FLAGS, GATEWAY_FLAGS_HELP, GatewayCallError, gatewayAccess } from '../webhooks/gateway-access.js';
import { isEventType, triggerEvent } from '../webhooks/trigger-flows.js';

export const command: CliCommand = {
  name: 'trigger',
  summary: 'make a sandbox gateway emit a real webhook event (creates the merchant, order, refund or settlement it needs)',
  usage: `Usage: paygate trigger EVENT_TYPE [--base-url URL --client-id ID --client-secret SECRET]

Creates, through the API of a sandbox gateway, what makes EVENT_TYPE happen, so the gateway emits the real event
to every endpoint subscribed to it (for example the one \`paygate listen\` registered). Nothing is fabricated:
  MERCHANT_APPROVED   a merchant, approved through the sandbox KYC endpoint
  PAYMENT_CAPTURED    + a hosted order paid through the sandbox checkout completion
  PAYMENT_FAILED      + a hosted order whose payment fails there
  PAYMENT_SETTLED     + a captured payment and a sandbox settlement run
  REFUND_PROCESSED    + a captured payment, a refund and its sandbox completion (processed)
  REFUND_FAILED       + the same, completed as failed
Each trigger starts with a new approved merchant, so MERCHANT_APPROVED is emitted too. Prints what it created.

Event types: ${EventType.join(', ')}

Flags:
${GATEWAY_FLAGS_HELP}

Exit codes: 0 the event was triggered, 1 the gateway refused a step (named, with its error), 2 bad arguments,
3 the gateway is unreachable.

Example:
  PAYGATE_CLIENT_SECRET=... npx paygate trigger PAYMENT_CAPTURED --client-id pk_test_walkthrough`,
  async run(argv, io) {
    let parsed;
    try {
      parsed = parseArgs({ args: [...argv], options: GATEWAY_FLAGS, allowPositionals: true, strict: true });
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    const [eventType, ...extra] = parsed.positionals;
    if (eventType === undefined) throw new UsageError(`name the event to trigger: one of ${EventType.join(', ')}`);
    if (extra.length > 0) throw new UsageError(`one event at a time; unexpected: ${extra.join(' ')}`);
    if (!isEventType(eventType)) throw new UsageError(`unknown event type ${JSON.stringify(eventType)}: one of ${EventType.join(', ')}`);
    const access = gatewayAccess(parsed.values);
    io.stderr(`Triggering ${eventType} on ${access.baseUrl}...\n`);
    try {
      const steps = await triggerEvent(access, eventType);
      for (const step of steps) io.stdout(`${step.what}: ${step.id}\n`);
      io.stdout(
        `Triggered ${eventType}; subscribed endpoints receive it within a second or two (GET /webhooks/endpoints/{id}/deliveries shows it).\n`,
      );
      return EXIT.ok;
    } catch (error) {
      if (!(error instanceof GatewayCallError)) throw error;
      io.stderr(`${error.message}\nIs ${access.baseUrl} a sandbox gateway (PAYGATE_MODE=sandbox), and the credential a partner's?\n`);
      return EXIT.failed;
    }
  },
};
