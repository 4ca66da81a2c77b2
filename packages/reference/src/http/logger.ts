import { randomUUID } from 'node:crypto';
import { isMainThread } from 'node:worker_threads';
import type { Request, Response } from 'express';
import { passesLuhn } from '../core/luhn.js';
import { pino, type DestinationStream, type Logger as PinoLogger, type LoggerOptions } from 'pino';

/** Keys whose values never reach a log line (at any of the first four nesting levels). */
export const REDACTED_KEYS = [
  'x-client-secret',
  'authorization',
  'cookie',
  'hash',
  'encryption_key',
  'encryptionKey',
  'client_secret',
  'clientSecret',
  'secret',
  'password',
  'card_number',
  'cardNumber',
  'card',
  'cvv',
  'cvc',
  'expiry',
] as const;

function redactPaths(): string[] {
  const paths: string[] = [];
  for (const key of REDACTED_KEYS) {
    const k = /^[A-Za-z_$][\w$]*$/.test(key) ? key : `["${key}"]`;
    const join = (prefix: string) => (k.startsWith('[') ? `${prefix}${k}` : prefix === '' ? k : `${prefix}.${k}`);
    paths.push(join(''), join('*'), join('*.*'), join('*.*.*'));
  }
  return paths;
}

const CARD_LIKE = /(?<![\w])(\d[ -]?){12,18}\d(?![\w])/g;

/** Mask card-like numbers (13..19 digits, optionally grouped, passing Luhn) in a string. */
export function maskCardNumbers(text: string): string {
  return text.replace(CARD_LIKE, (match) => {
    const digits = match.replace(/[ -]/g, '');
    if (digits.length < 13 || digits.length > 19 || !passesLuhn(digits)) return match;
    return `[card ${digits.slice(-4).padStart(digits.length, '*').slice(-8)}]`;
  });
}

function scrub(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return maskCardNumbers(value);
  if (depth > 4 || value === null || typeof value !== 'object') return value;
  if (value instanceof Error || Buffer.isBuffer(value)) return value;
  if (Array.isArray(value)) return value.map((v) => scrub(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = scrub(v, depth + 1);
  return out;
}

export interface CreateLoggerOptions {
  level?: string;
  /** Where lines go (default stdout). */
  destination?: DestinationStream;
  /** Extra pino options (merged last, except redact/mixin). */
  pino?: LoggerOptions;
}

/**
 * The gateway's pino logger: secrets (`x-client-secret`, `authorization`, `hash`, `encryption_key`, `client_secret`,
 * `secret`, card fields) are redacted and card-like numbers masked. A request's lines carry its `req_id` as a field of
 * their own (the access line; the scaffold's error lines through `requestLogFields`), not from an async context (D165 no AsyncLocalStorage per request).
 */
export function createLogger(options: CreateLoggerOptions = {}): PinoLogger {
  const config: LoggerOptions = {
    level: options.level ?? process.env['LOG_LEVEL'] ?? 'info',
    ...options.pino,
    redact: { paths: redactPaths(), censor: '[redacted]' },
    formatters: {
      ...options.pino?.formatters,
      log: (obj) => scrub(obj, 0) as Record<string, unknown>,
    },
  };
  return pino(config, options.destination ?? stdoutDestination());
}

/** Lines buffered before a write (bytes), and the longest a line waits for one (ms). */
export const LOG_BUFFER = { bytes: 4096, flushMs: 100 } as const;

/**
 * Standard output, written in batches (D149 batched standard output logging): at least {@link LOG_BUFFER}.bytes per write, or whatever is there every
 * {@link LOG_BUFFER}.flushMs. pino's default writes as soon as no write is in flight, which under load was one
 * write (a thread-pool round trip and a system call) per one to three access lines. pino flushes the buffer
 * synchronously when the process exits, a crash included; only a SIGKILL loses the last 100 ms of lines.
 */
function stdoutDestination(): DestinationStream {
  // pino registers that exit flush on the main thread only: a worker thread keeps pino's unbuffered default
  if (!isMainThread) return pino.destination({ dest: 1, sync: false });
  return pino.destination({ dest: 1, sync: false, minLength: LOG_BUFFER.bytes, periodicFlush: LOG_BUFFER.flushMs });
}

/** A log destination that holds its lines until `release()`, then writes them and everything after straight through. */
export interface HeldDestination extends DestinationStream {
  release(): void;
}

/**
 * `paygate serve` prints a human banner while it starts; a JSON line logged meanwhile (the sandbox's first start logs
 * the master key it generated) would land in the middle of it. Lines written before `release()` wait, in order, and
 * follow the banner (D134 paygate serve prints one human block first). `target` defaults to the gateway's standard output, written in batches (D149; D168: the
 * default was pino's unbatched destination, so `paygate serve` wrote every access line or two on its own).
 */
export function heldDestination(target: DestinationStream = stdoutDestination()): HeldDestination {
  let held: string[] | undefined = [];
  return {
    write(line: string) {
      if (held === undefined) target.write(line);
      else held.push(line);
    },
    release() {
      const lines = held ?? [];
      held = undefined;
      for (const line of lines) target.write(line);
    },
  };
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The logger for access lines. Their shape is fixed and carries no secret and no request data: method, the route
 * TEMPLATE (never the raw path or query), operation id, status and duration. So a pino logger gets a child with the
 * same destination and level but without the redaction pass (64 wildcard paths) and the card-number
 * scrub, which otherwise run on every access line. Any other logger is used as is.
 */
function accessLogger(logger: Pick<PinoLogger, 'info' | 'warn' | 'error'>): Pick<PinoLogger, 'info' | 'error'> {
  const child = (logger as Partial<PinoLogger>).child;
  if (typeof child !== 'function') return logger;
  return child.call(logger, {}, { redact: [], formatters: { log: (obj: object) => obj as Record<string, unknown> } });
}

/** What the access line of one request needs, kept on its response (no closure per request). */
interface AccessRecord {
  requestId: string;
  method: string;
  started: number;
  access: Pick<PinoLogger, 'info' | 'error'>;
}

const ACCESS = Symbol('paygate.access');

type LoggedResponse = Response & { [ACCESS]?: AccessRecord };

/** The 'finish' listener of every request (one function, `this` is the response). */
function writeAccessLine(this: LoggedResponse): void {
  const record = this[ACCESS];
  if (record === undefined) return;
  this[ACCESS] = undefined;
  const ms = Math.round((performance.now() - record.started) * 10) / 10;
  const operation = this.locals['operation'] as { path?: string; operationId?: string } | undefined;
  const route = operation?.path ?? (this.locals['route'] as string | undefined) ?? 'unmatched';
  const status = this.statusCode;
  // req_id is a field of the line itself (D165 no AsyncLocalStorage per request)
  const line =
    operation?.operationId !== undefined
      ? { req_id: record.requestId, method: record.method, route, operation: operation.operationId, status, ms }
      : { req_id: record.requestId, method: record.method, route, status, ms };
  if (status >= 500) record.access.error(line, 'request');
  else record.access.info(line, 'request');
}

/** The request id {@link requestLogging} gave a request (undefined before it ran). */
export function requestIdOf(res: Response): string | undefined {
  return res.locals['requestId'] as string | undefined;
}

/**
 * The request id (`X-Request-Id` echoed when well-formed, else a new UUID) set on the response, and ONE access line
 * when the response finishes (method, route template, status, ms). Runs inside the caller's own middleware (D148 gateway's pre-scaffold work in one middleware).
 * No async context is entered (D165 no AsyncLocalStorage per request): in Node 20 an AsyncLocalStorage run turns on async hooks for the whole process,
 * a JavaScript callback for every promise and every native handle created from then on; the lines a request writes
 * carry its `req_id` as their own field instead.
 */
export function requestLogging(logger: Pick<PinoLogger, 'info' | 'warn' | 'error'>): (req: Request, res: Response) => void {
  const access = accessLogger(logger);
  return (req, res) => {
    const incoming = req.headers['x-request-id'];
    const requestId = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    res.setHeader('X-Request-Id', requestId);
    res.locals['requestId'] = requestId;
    const record: AccessRecord = { requestId, method: req.method, started: performance.now(), access };
    (res as LoggedResponse)[ACCESS] = record;
    // `on`, not `once`: 'finish' is emitted once per response, and `once` allocates a wrapper per call
    res.on('finish', writeAccessLine);
  };
}
