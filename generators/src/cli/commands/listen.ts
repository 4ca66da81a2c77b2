/**
 * `paygate listen --forward-to URL`: watch a sandbox gateway's webhook events arrive at a receiver on this machine,
 * with valid Standard Webhooks signatures under a printed `whsec_` secret (D80 paygate listen forwards webhooks locally). Runs until SIGINT/SIGTERM, then
 * removes its temporary endpoint. With `--input SPEC` (D214 listen and trigger for any spec) it talks to no gateway: a local relay validates the
 * events of that API (its webhooks and callbacks) as they arrive and forwards them to the receiver.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { EventType } from '@paygate/contract';
import { EnvironmentError, EXIT, UsageError, type CliCommand, type CliIo, type ExitCode } from '../command.js';
import { GATEWAY_FLAGS, GATEWAY_FLAGS_HELP, GatewayCallError, gatewayAccess } from '../webhooks/gateway-access.js';
import { startListenSession } from '../webhooks/listen-session.js';
import { loadSpecEvents, startSpecRelay } from '../webhooks/spec-relay.js';
import { isEventType } from '../webhooks/trigger-flows.js';

const FLAGS = {
  ...GATEWAY_FLAGS,
  'forward-to': { type: 'string' },
  events: { type: 'string' },
  'relay-host': { type: 'string' },
  'relay-port': { type: 'string' },
  'relay-url': { type: 'string' },
  input: { type: 'string' },
  asyncapi: { type: 'string' },
} as const;

function httpUrl(flag: string, raw: string): string {
  try {
    const url = new URL(raw);
    if (url.protocol === 'http:' || url.protocol === 'https:') return url.href;
  } catch {
    // reported below
  }
  throw new UsageError(`--${flag} must be an http(s) URL, got ${JSON.stringify(raw)}`);
}

function parseEvents(raw: string | undefined): EventType[] {
  if (raw === undefined) return [...EventType];
  const names = raw
    .split(',')
    .map((n) => n.trim())
    .filter((n) => n !== '');
  const unknown = names.filter((n) => !isEventType(n));
  if (names.length === 0 || unknown.length > 0)
    throw new UsageError(
      `--events takes a comma-separated list of ${EventType.join(', ')}${unknown.length ? `; unknown: ${unknown.join(', ')}` : ''}`,
    );
  return [...new Set(names.filter(isEventType))];
}

/** `paygate listen` until `stop` aborts (the command wires SIGINT/SIGTERM to it; tests their own controller). */
export async function runListen(argv: readonly string[], io: CliIo, stop: AbortSignal): Promise<ExitCode> {
  let values;
  try {
    values = parseArgs({ args: [...argv], options: FLAGS, allowPositionals: false, strict: true }).values;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (values['forward-to'] === undefined)
    throw new UsageError('--forward-to is required: your local receiver, e.g. --forward-to http://localhost:3000/webhooks');
  const forwardTo = httpUrl('forward-to', values['forward-to']);
  const relayPort = values['relay-port'] === undefined ? 0 : Number(values['relay-port']);
  if (!Number.isInteger(relayPort) || relayPort < 0 || relayPort > 65535)
    throw new UsageError(`--relay-port must be a port number, got ${JSON.stringify(values['relay-port'])}`);
  if (values.input !== undefined) return relaySpecEvents(values, forwardTo, relayPort, io, stop);
  const events = parseEvents(values.events);
  const access = gatewayAccess(values);
  io.stderr(`Registering a temporary webhook endpoint on ${access.baseUrl} for ${events.join(', ')}...\n`);
  let session;
  try {
    session = await startListenSession({
      access,
      forwardTo,
      events,
      relayPort,
      ...(values['relay-host'] === undefined ? {} : { relayHost: values['relay-host'] }),
      ...(values['relay-url'] === undefined ? {} : { relayUrl: httpUrl('relay-url', values['relay-url']) }),
      log: (line) => io.stdout(`${new Date().toISOString()} ${line}\n`),
    });
  } catch (error) {
    if (!(error instanceof GatewayCallError)) throw error;
    io.stderr(`${error.message}\n`);
    return EXIT.failed;
  }
  io.stdout(`Ready. Forwarding to ${forwardTo}; your webhook signing secret is ${session.secret}\n`);
  io.stderr(`Endpoint ${session.endpointId} delivers to the relay at ${session.relayUrl}. Ctrl-C removes it.\n`);
  await stopped(stop);
  io.stderr(`Removing endpoint ${session.endpointId}...\n`);
  try {
    await session.stop();
  } catch (error) {
    if (!(error instanceof GatewayCallError)) throw error;
    io.stderr(`${error.message}\nDelete endpoint ${session.endpointId} yourself (DELETE /webhooks/endpoints/${session.endpointId}).\n`);
    return EXIT.failed;
  }
  io.stderr('Stopped.\n');
  return EXIT.ok;
}

/** Resolves when `stop` aborts. */
function stopped(stop: AbortSignal): Promise<void> {
  return stop.aborted ? Promise.resolve() : new Promise<void>((resolve) => stop.addEventListener('abort', () => resolve(), { once: true }));
}

/** `--input SPEC`: a local relay validating that API's events (D214 listen and trigger for any spec); no gateway, nothing registered. */
async function relaySpecEvents(
  values: {
    input?: string;
    asyncapi?: string;
    'relay-host'?: string;
    events?: string;
    'base-url'?: string;
    'client-id'?: string;
    'relay-url'?: string;
  },
  forwardTo: string,
  relayPort: number,
  io: CliIo,
  stop: AbortSignal,
): Promise<ExitCode> {
  const gatewayOnly = (['events', 'base-url', 'client-id', 'relay-url'] as const).filter((flag) => values[flag] !== undefined);
  if (gatewayOnly.length > 0) {
    throw new UsageError(
      `--${gatewayOnly[0]} is for the Paygate gateway; with --input the relay validates what that API sends, and the API's own subscriptions decide which events come`,
    );
  }
  const input = path.resolve(io.cwd, values.input!);
  if (!existsSync(input)) throw new EnvironmentError(`--input ${values.input}: no such file. Pass your OpenAPI document.`);
  const asyncapi = values.asyncapi === undefined || values.asyncapi === 'none' ? null : path.resolve(io.cwd, values.asyncapi);
  io.stderr(`Reading the events of ${values.input}...\n`);
  const events = await loadSpecEvents(input, asyncapi, io.cwd);
  const { model } = events;
  if (model.webhooks.length === 0) {
    io.stderr(`${model.title} declares no events (no webhook or callback with a request body): there is nothing to relay.\n`);
    return EXIT.failed;
  }
  const relay = await startSpecRelay({
    ...events,
    forwardTo,
    host: values['relay-host'] ?? '127.0.0.1',
    port: relayPort,
    log: (line) => io.stdout(`${new Date().toISOString()} ${line}\n`),
  });
  const byName = model.webhooks.filter((e) => e.discriminatorValue === undefined).map((e) => e.eventType);
  const found = model.webhookDiscriminator === undefined ? '' : ` (found by their ${model.webhookDiscriminator})`;
  io.stdout(`Ready. Relaying ${model.title}'s events from ${relay.url} to ${forwardTo}, validating each against the spec.\n`);
  io.stderr(
    `Events: ${model.webhooks.map((e) => e.eventType).join(', ')}${found}.\n` +
      `Point ${model.title}'s webhook or callback URL at ${relay.url}${byName.length > 0 ? ` (events known by name at ${relay.url}<name>: ${byName.join(', ')})` : ''}; ` +
      'a remote API needs a tunnel to it. Ctrl-C stops.\n',
  );
  await stopped(stop);
  await relay.stop();
  io.stderr('Stopped.\n');
  return EXIT.ok;
}

export const command: CliCommand = {
  name: 'listen',
  summary: "forward a sandbox gateway's webhook events to a local receiver, signed, until Ctrl-C (like stripe listen)",
  usage: `Usage: paygate listen --forward-to URL [--events LIST] [--base-url URL --client-id ID --client-secret SECRET]
                     [--relay-host HOST] [--relay-port PORT] [--relay-url URL]
       paygate listen --input SPEC --forward-to URL [--asyncapi FILE] [--relay-host HOST] [--relay-port PORT]

Registers a temporary webhook endpoint on the gateway (partner-wide: every merchant's events), receives its
deliveries on a local relay and posts each one to --forward-to with its Standard Webhooks headers, which verify
under the whsec_ secret printed at start. Prints every delivery and your receiver's answer; the gateway records
that answer, so GET /webhooks/endpoints/{id}/deliveries shows it, and retries what your receiver refused.
Ctrl-C (SIGINT) or SIGTERM removes the endpoint. Your receiver needs no public URL.

The gateway pushes to the relay, so it must reach this machine: a gateway on this machine or your network in
sandbox mode (PAYGATE_WEBHOOK_PRIVATE_DESTINATIONS=allow, the sandbox default); for one in a container, pass an
address it reaches, e.g. --relay-host 0.0.0.0 --relay-url http://host.docker.internal:4242/. A remote gateway
that cannot reach you is not supported (decision D80).

With --input SPEC (any API's OpenAPI document, not the Paygate gateway): no gateway is called and nothing is
registered. A relay listens on this machine; point the API's webhook or callback URL at it (a remote API needs a
tunnel). Each delivery is checked against the spec's events, found by the property naming them (event_type, type,
...) or, for events known only by name (a callback without one), by the relay path /<event name>; the relay prints
the event and what is wrong with it, then forwards the request unchanged (body and headers, so a signature still
verifies) to --forward-to and answers the sender with your receiver's status (decision D214).

Flags:
  --forward-to URL       your receiver (required), e.g. http://localhost:3000/webhooks
  --events LIST          comma-separated event types (default: all of ${EventType.join(', ')})
${GATEWAY_FLAGS_HELP}
  --relay-host HOST      where the relay listens (default 127.0.0.1)
  --relay-port PORT      its port (default: any free one)
  --relay-url URL        the URL the gateway posts to, when not http://HOST:PORT/paygate-listen
  --input SPEC           relay and validate the events of this OpenAPI document instead (no gateway)
  --asyncapi FILE        with --input: an AsyncAPI document describing more of its events

Exit codes: 0 stopped by Ctrl-C, 1 the gateway refused a call, 2 bad flags, 3 the gateway is unreachable or
cannot deliver to the relay.

Example:
  PAYGATE_CLIENT_SECRET=... npx paygate listen --client-id pk_test_walkthrough --forward-to http://localhost:3000/webhooks
  # in another shell: npx paygate trigger PAYMENT_CAPTURED --client-id pk_test_walkthrough
  npx paygate listen --input openapi.yaml --relay-port 4242 --forward-to http://localhost:3000/webhooks`,
  run(argv, io) {
    const controller = new AbortController();
    const onSignal = () => controller.abort();
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    return runListen(argv, io, controller.signal).finally(() => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    });
  },
};
