/**
 * `paygate trigger EVENT_TYPE`: make a sandbox gateway emit a real event (D81 paygate trigger makes real events) by creating what it announces, through
 * the API: a merchant and its KYC approval, an order completed through the sandbox, a settlement run, a refund
 * completed through the sandbox. Pairs with `paygate listen`.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { EventType } from '@paygate/contract';
import { EnvironmentError, EXIT, UsageError, type CliCommand, type CliIo, type ExitCode } from '../command.js';
import { GATEWAY_FLAGS, GATEWAY_FLAGS_HELP, GatewayCallError, gatewayAccess } from '../webhooks/gateway-access.js';
import { loadSpecEvents } from '../webhooks/spec-relay.js';
import { isEventType, triggerEvent } from '../webhooks/trigger-flows.js';

/** `--input SPEC`: another API's events cannot be caused from here; say so, list them, point at listen (D214 listen and trigger for any spec). */
async function anotherApi(input: string, io: CliIo): Promise<ExitCode> {
  const file = path.resolve(io.cwd, input);
  if (!existsSync(file)) throw new EnvironmentError(`--input ${input}: no such file. Pass your OpenAPI document.`);
  const { model } = await loadSpecEvents(file, null, io.cwd);
  const events = model.webhooks.map((e) => e.eventType);
  io.stderr(
    `paygate trigger makes the Paygate gateway emit its own events through its API; it cannot make ${model.title} send one.\n` +
      (events.length === 0
        ? `${model.title} declares no events (no webhook or callback with a request body).\n`
        : `${model.title}'s events: ${events.join(', ')}. Cause one in ${model.title} itself, and watch it arrive, validated against the spec, with:\n` +
          `  paygate listen --input ${input} --forward-to http://localhost:3000/webhooks\n`),
  );
  return EXIT.usage;
}

export const command: CliCommand = {
  name: 'trigger',
  summary: 'make a sandbox gateway emit a real webhook event (creates the merchant, order, refund or settlement it needs)',
  usage: `Usage: paygate trigger EVENT_TYPE [--base-url URL --client-id ID --client-secret SECRET]
       paygate trigger --input SPEC   (another API: lists its events, and how to watch them)

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

Only the Paygate gateway can be made to send its events this way. For another API (--input SPEC), trigger says
so and lists that API's events: cause the event in that API, and watch it arrive with
\`paygate listen --input SPEC --forward-to URL\`, which validates it against the spec (decision D214).

Flags:
${GATEWAY_FLAGS_HELP}

Exit codes: 0 the event was triggered, 1 the gateway refused a step (named, with its error), 2 bad arguments,
3 the gateway is unreachable.

Example:
  PAYGATE_CLIENT_SECRET=... npx paygate trigger PAYMENT_CAPTURED --client-id pk_test_walkthrough`,
  async run(argv, io) {
    let parsed;
    try {
      parsed = parseArgs({
        args: [...argv],
        options: { ...GATEWAY_FLAGS, input: { type: 'string' } },
        allowPositionals: true,
        strict: true,
      });
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    if (parsed.values.input !== undefined) return anotherApi(parsed.values.input, io);
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
