/**
 * `paygate listen --forward-to URL`: watch a sandbox gateway's webhook events arrive at a receiver on this machine,
 * with valid Standard Webhooks signatures under a printed `whsec_` secret (D80). Runs until SIGINT/SIGTERM, then
 * removes its temporary endpoint.
 */
import { parseArgs } from 'node:util';
import { EventType } from '@paygate/contract';
import { EXIT, UsageError, type CliCommand, type CliIo, type ExitCode } from '../command.js';
import { GATEWAY_FLAGS, GATEWAY_FLAGS_HELP, GatewayCallError, gatewayAccess } from '../webhooks/gateway-access.js';
import { startListenSession } from '../webhooks/listen-session.js';
import { isEventType } from '../webhooks/trigger-flows.js';

const FLAGS = {
  ...GATEWAY_FLAGS,
  'forward-to': { type: 'string' },
  events: { type: 'string' },
  'relay-host': { type: 'string' },
  'relay-port': { type: 'string' },
  'relay-url': { type: 'string' },
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
  if (!stop.aborted) await new Promise<void>((resolve) => stop.addEventListener('abort', () => resolve(), { once: true }));
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

export const command: CliCommand = {
  name: 'listen',
  summary: "forward a sandbox gateway's webhook events to a local receiver, signed, until Ctrl-C (like stripe listen)",
  usage: `Usage: paygate listen --forward-to URL [--events LIST] [--base-url URL --client-id ID --client-secret SECRET]
                     [--relay-host HOST] [--relay-port PORT] [--relay-url URL]

Registers a temporary webhook endpoint on the gateway (partner-wide: every merchant's events), receives its
deliveries on a local relay and posts each one to --forward-to with its Standard Webhooks headers, which verify
under the whsec_ secret printed at start. Prints every delivery and your receiver's answer; the gateway records
that answer, so GET /webhooks/endpoints/{id}/deliveries shows it, and retries what your receiver refused.
Ctrl-C (SIGINT) or SIGTERM removes the endpoint. Your receiver needs no public URL.

The gateway pushes to the relay, so it must reach this machine: a gateway on this machine or your network in
sandbox mode (PAYGATE_WEBHOOK_PRIVATE_DESTINATIONS=allow, the sandbox default); for one in a container, pass an
address it reaches, e.g. --relay-host 0.0.0.0 --relay-url http://host.docker.internal:4242/. A remote gateway
that cannot reach you is not supported (decision D80).

Flags:
  --forward-to URL       your receiver (required), e.g. http://localhost:3000/webhooks
  --events LIST          comma-separated event types (default: all of ${EventType.join(', ')})
${GATEWAY_FLAGS_HELP}
  --relay-host HOST      where the relay listens (default 127.0.0.1)
  --relay-port PORT      its port (default: any free one)
  --relay-url URL        the URL the gateway posts to, when not http://HOST:PORT/paygate-listen

Exit codes: 0 stopped by Ctrl-C, 1 the gateway refused a call, 2 bad flags, 3 the gateway is unreachable or
cannot deliver to the relay.

Example:
  PAYGATE_CLIENT_SECRET=... npx paygate listen --client-id pk_test_walkthrough --forward-to http://localhost:3000/webhooks
  # in another shell: npx paygate trigger PAYMENT_CAPTURED --client-id pk_test_walkthrough`,
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
