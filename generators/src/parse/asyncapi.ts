import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseAsyncApiFile } from './asyncapi-parse.js';
import { UnsupportedSpecError } from './refusal.js';

export interface AsyncApiMessage {
  /** Message id/name (e.g. PAYMENT_FAILED). */
  name: string;
  title: string | undefined;
  summary: string | undefined;
  description: string | undefined;
  /** Resolved JSON Schema of the payload (refs inlined, plain JSON). */
  payload: unknown;
  channels: string[];
  /** Tag names, in document order. */
  tags: string[];
}

/** An event announced for a later version: the document's `x-planned-events` entries. */
export interface AsyncApiPlannedEvent {
  eventType: string;
  category: string | undefined;
  summary: string;
}

export interface LoadedAsyncApi {
  messages: AsyncApiMessage[];
  plannedEvents: AsyncApiPlannedEvent[];
  problems: string[];
  /** Every file the parse read: the document and the local files its references name (what watch mode watches). */
  files: string[];
}

/** Parses (and validates) an AsyncAPI document; refuses on errors with file:line locations. */
export async function loadAsyncApi(file: string, cwd: string = process.cwd()): Promise<LoadedAsyncApi> {
  const absolute = path.resolve(cwd, file);
  await readFile(absolute); // fail early with ENOENT
  const { document, diagnostics, files } = await parseAsyncApiFile(absolute);
  const rel = path.relative(cwd, absolute);
  const format = (d: (typeof diagnostics)[number]): string =>
    `${rel}:${d.range.start.line + 1}:${d.range.start.character + 1}: ${d.code} ${d.message} (at ${d.path.join('.')})`;
  const errors = diagnostics.filter((d) => d.severity === 0);
  if (document === undefined || errors.length > 0) {
    throw new UnsupportedSpecError(
      rel,
      '',
      ['it is not a valid AsyncAPI document:', ...errors.map((d) => `    ${format(d)}`)].join('\n'),
      'fix the lines shown.',
    );
  }
  const messages = new Map<string, AsyncApiMessage>();
  for (const message of document.allMessages().all()) {
    const name = message.name() ?? message.id();
    const payload = message.payload()?.json();
    const channels = message
      .channels()
      .all()
      .map((c) => c.address() ?? c.id())
      .sort();
    messages.set(name, {
      name,
      title: message.title(),
      summary: message.summary(),
      description: message.description(),
      payload: payload === undefined ? undefined : JSON.parse(JSON.stringify(stripParserKeys(payload))),
      channels,
      tags: message
        .tags()
        .all()
        .map((t) => t.name()),
    });
  }
  return {
    messages: [...messages.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
    plannedEvents: plannedEvents(document.extensions().get('x-planned-events')?.value(), rel),
    problems: diagnostics.filter((d) => d.severity === 1).map(format),
    files,
  };
}

function plannedEvents(raw: unknown, file: string): AsyncApiPlannedEvent[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw))
    throw new UnsupportedSpecError(
      file,
      '#/x-planned-events',
      'x-planned-events is not a list.',
      'make it a list of { eventType, category, summary }.',
    );
  return raw.map((entry: unknown, i) => {
    const e = (entry ?? {}) as Record<string, unknown>;
    if (typeof e.eventType !== 'string' || typeof e.summary !== 'string') {
      throw new UnsupportedSpecError(
        file,
        `#/x-planned-events/${i}`,
        'the entry has no string eventType or summary.',
        'give it both (category is optional).',
      );
    }
    return { eventType: e.eventType, category: typeof e.category === 'string' ? e.category : undefined, summary: e.summary };
  });
}

/** The parser annotates schemas with `x-parser-*` keys; drop them so output does not depend on parser internals. */
export function stripParserKeys(value: unknown, seen = new WeakSet<object>()): unknown {
  if (Array.isArray(value)) return value.map((v) => stripParserKeys(v, seen));
  if (value !== null && typeof value === 'object') {
    if (seen.has(value)) return {};
    seen.add(value);
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (!k.startsWith('x-parser-')) out[k] = stripParserKeys(v, seen);
    seen.delete(value);
    return out;
  }
  return value;
}
