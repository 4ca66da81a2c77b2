/**
 * The scaffold of a generated project started with no handlers (`notImplemented: 'respond'`) and probed the way the
 * Figma test probes its own (test/server/figma-scaffold.test.ts, through the same SpecProbe): per operation a valid
 * request (answered 501), an invalid one (400, or 422 where the operation declares 422 and no 400, naming the field)
 * and, where the operation is secured, one without credentials (401, or 403 where it declares 403 and no 401); each
 * answer read against the spec. Authenticators accept one token per scheme, sent where each scheme says.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createApiApp } from '../../packages/server/src/runtime/app.js';
import type { JsonObject } from '../../packages/contract-tests/src/spec-check/samples.js';
import {
  fetchFailure,
  SpecProbe,
  unsentReason,
  type ProbeAnswer,
  type ProbedOperation,
  type ProbeKind,
} from '../../test/server/support/scaffold-probe.js';
import { probeLimit } from './probe-limits.js';
import { listenForProbe } from './probe-server.js';
import { as2020 } from './schema-dialect.js';
import type { ProbeException, ProbeSummary } from './types.js';
import { isObj, escapePointerToken } from '../../generators/src/util/json.js';
import { accepts, credentialsFor, type Scheme, withQueryCredentials } from './probe-credentials.js';

export interface ScaffoldOutcome {
  /** Set when the app refused to start (or a generated module failed to load): the message. */
  refused?: string;
  /** Set when the probe itself failed (the runner's failure, not Paygate's). */
  probeFailed?: string;
  probe?: ProbeSummary;
}

/** Loads the generated contract and validators from `dir/generated`, starts the app, probes it, stops it. */
export async function probeScaffold(dir: string, document: JsonObject): Promise<ScaffoldOutcome> {
  const load = (file: string) => import(pathToFileURL(path.join(dir, 'generated', file)).href) as Promise<Record<string, unknown>>;
  let server: Server | undefined;
  const warnings: string[] = [];
  try {
    const contract = await load('contract/index.ts');
    const { requestValidators } = await load('server/request-validators.gen.ts');
    const securitySchemes = (contract['securitySchemes'] ?? {}) as Record<string, unknown>;
    const authenticators = Object.fromEntries(
      Object.keys(securitySchemes).map((name) => [
        name,
        ({ credential }: { credential: unknown }) => (accepts(credential) ? { probe: true } : undefined),
      ]),
    );
    const spec = { apiDocument: contract['apiDocument'], operations: contract['operations'], securitySchemes, requestValidators };
    const logger = {
      info: () => {},
      warn: (_f: unknown, m: string) => void warnings.push(m),
      error: (_f: unknown, m: string) => void warnings.push(m),
    };
    // biome-ignore lint/suspicious/noExplicitAny: the generated spec's types are the document's; the runner is generic over them
    const app = createApiApp(spec as any, { handlers: {}, notImplemented: 'respond', authenticators, logger, validateResponses: false });
    server = await listenForProbe(app);
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const schemes = (document['components'] as { securitySchemes?: Record<string, Scheme> } | undefined)?.securitySchemes ?? {};
    try {
      const readable = as2020(document);
      return { probe: await probeAll(new SpecProbe(readable), readable, baseUrl, schemes) };
    } catch (error) {
      // the probe's own failure (reading the document, compiling its schemas): the scaffold is not to blame
      return { probeFailed: String((error as Error).stack ?? error).slice(0, 2000) };
    }
  } catch (error) {
    return { refused: (error instanceof Error ? error.message : String(error)).slice(0, 2000) };
  } finally {
    if (server !== undefined) {
      server.closeAllConnections();
      await new Promise((resolve) => server!.close(resolve));
    }
  }
}

/**
 * Why the probe cannot build a request of this kind for the operation, or undefined when it can: an invalid request of
 * an operation with nothing to break (SpecProbe.unbreakable), a body in no JSON
 * media type (multipart, XML, binary: the probe samples JSON only). A path template holding a `#` (the AWS style
 * `/#Action=X`) is probed since the scaffold routes it (D410 every path template real specs use is routed): the probe sends the query or header its fragment names.
 */
function notProbed(probe: SpecProbe, document: JsonObject, operation: ProbedOperation, kind: ProbeKind): string | undefined {
  // fetch sends no body with GET or HEAD (OpenAPI 3.1 allows one; most servers and clients do not)
  if (kind !== 'unauthenticated' && operation.body !== undefined && ['get', 'head'].includes(operation.method))
    return 'a request body on GET or HEAD';
  if (kind === 'invalid') {
    const unbreakable = probe.unbreakable(operation);
    if (unbreakable !== undefined) return unbreakable;
  }
  if (kind === 'unauthenticated' || operation.body !== undefined) return undefined;
  const paths = document['paths'] as Record<string, unknown> | undefined;
  const item = probe.deref((paths?.[operation.path] ?? undefined) as never);
  const op = isObj(item) ? item[operation.method] : undefined;
  const body = isObj(op) ? probe.deref(op['requestBody'] as never) : undefined;
  return isObj(body) && isObj(body['content']) && Object.keys(body['content']).length > 0
    ? 'a request body in no JSON media type'
    : undefined;
}

/** The pointer of the JSON body schema the probe sends, for checking that its "invalid" body really is invalid. */
function bodySchemaPointer(document: JsonObject, operation: ProbedOperation): string | undefined {
  if (operation.body === undefined || operation.body.schema === undefined) return undefined;
  const token = escapePointerToken;
  const paths = document['paths'] as Record<string, Record<string, Record<string, unknown>>> | undefined;
  const raw = paths?.[operation.path]?.[operation.method]?.['requestBody'];
  const at =
    isObj(raw) && typeof raw['$ref'] === 'string' ? raw['$ref'] : `#/paths/${token(operation.path)}/${operation.method}/requestBody`;
  return `${at}/content/${token(operation.body.mediaType)}/schema`;
}

async function probeAll(probe: SpecProbe, document: JsonObject, baseUrl: string, schemes: Record<string, Scheme>): Promise<ProbeSummary> {
  const summary: ProbeSummary = {
    operations: probe.operations.length,
    requests: 0,
    conforming: 0,
    undeclared: 0,
    notProbed: {},
    probeMistakes: 0,
    exceptionCount: 0,
    exceptions: [],
  };
  const tasks: (() => Promise<void>)[] = [];
  for (const operation of probe.operations) {
    const { headers, query } = credentialsFor(operation, schemes);
    for (const kind of ['valid', 'invalid', 'unauthenticated'] as const satisfies readonly ProbeKind[]) {
      tasks.push(async () => {
        const skipped = notProbed(probe, document, operation, kind);
        if (skipped !== undefined) {
          summary.notProbed[skipped] = (summary.notProbed[skipped] ?? 0) + 1;
          return;
        }
        const request = probe.request(operation, kind, baseUrl, headers, {});
        if (request === undefined) return;
        if (kind !== 'unauthenticated' && query.length > 0) request.url = withQueryCredentials(request.url, query, request.field);
        summary.requests++;
        let answer: ProbeAnswer;
        try {
          answer = await probe.send(request);
        } catch (error) {
          noAnswer(summary, kind, request.label, error);
          return;
        }
        let problem: string | undefined;
        try {
          problem = judge(probe, answer);
        } catch {
          // the probe's Ajv (2020-12) cannot compile the declared schema (an OpenAPI 3.0 boolean
          // `exclusiveMaximum`, say): the answer cannot be read, so it counts neither way
          uncounted(summary, UNCOMPILABLE);
          return;
        }
        // the probe's "invalid" body that the schema accepts (an array against an object schema without `type`,
        // say): the scaffold was right to take it; the probe's mistake, counted apart
        if (
          problem !== undefined &&
          kind === 'invalid' &&
          answer.status === 501 &&
          request.body !== undefined &&
          request.field === 'body'
        ) {
          const pointer = bodySchemaPointer(document, operation);
          const accepted = (() => {
            try {
              return pointer !== undefined && probe.validate(pointer, JSON.parse(request.body!)).length === 0;
            } catch {
              return false;
            }
          })();
          if (accepted) {
            summary.probeMistakes++;
            return;
          }
        }
        if (answer.declared === undefined) summary.undeclared++;
        if (problem === undefined) summary.conforming++;
        else
          note(summary, {
            kind,
            label: request.label,
            expected: expectedStatus(probe, operation, kind),
            status: answer.status,
            problem,
            answer: answer.text.slice(0, 300),
          });
      });
    }
  }
  // a few requests in flight: one document's probe stays a small share of the machine
  let next = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next < tasks.length) await tasks[next++]!();
    }),
  );
  return summary;
}

const UNCOMPILABLE = "a response schema the probe's JSON Schema 2020-12 validator cannot compile";

/** A request sent that counts neither way, counted as not probed for `reason`. */
function uncounted(summary: ProbeSummary, reason: string): void {
  summary.requests--;
  summary.notProbed[reason] = (summary.notProbed[reason] ?? 0) + 1;
}

/** A request that got no answer: the probe's own failure (counted apart), else the scaffold's, with fetch's cause. */
function noAnswer(summary: ProbeSummary, kind: ProbeException['kind'], label: string, error: unknown): void {
  // not the network: the probe's validator could not compile the declared schema; the answer counts neither way
  if (!['TypeError', 'TimeoutError', 'AbortError'].includes((error as Error).name)) uncounted(summary, UNCOMPILABLE);
  // a request undici refused to send reached no scaffold: the probe's limit, not the scaffold's failure (D414, "The
  // corpus probe's own HTTP failures are not the scaffold's")
  else if (unsentReason(error) !== undefined) uncounted(summary, unsentReason(error)!);
  else note(summary, { kind, label, expected: 0, status: 0, problem: `no answer: ${fetchFailure(error)}`, answer: '' });
}

function note(summary: ProbeSummary, exception: ProbeException): void {
  const limit = probeLimit(exception.problem, exception.label);
  if (limit !== undefined) {
    summary.requests--;
    summary.notProbed[limit] = (summary.notProbed[limit] ?? 0) + 1;
    return;
  }
  summary.exceptionCount++;
  if (summary.exceptions.length < 10) summary.exceptions.push(exception);
}

/** The status an answer must have (as the Figma test reads it: D217 for refusals, 422 where only 422 is declared). */
function expectedStatus(probe: SpecProbe, operation: ProbedOperation, kind: ProbeKind): number {
  if (kind === 'valid') return 501;
  if (kind === 'invalid') return !probe.declares(operation, 400) && operation.responses.has('422') ? 422 : 400;
  return !probe.declares(operation, 401) && operation.responses.has('403') ? 403 : 401;
}

/** What is wrong with an answer, or undefined when it conforms. */
function judge(probe: SpecProbe, answer: ProbeAnswer): string | undefined {
  const { request } = answer;
  const expected = expectedStatus(probe, request.operation, request.kind);
  if (answer.status !== expected) return `status ${answer.status}, expected ${expected}`;
  if (answer.declared !== undefined) {
    if (answer.violations.length > 0) return `not the declared ${answer.declared} shape: ${answer.violations.join('; ')}`;
  } else {
    const schemas = probe.documentSchemas(answer.status);
    // each read as the operation's own declared bodies are (an XML answer as XML: SimpleDB's undeclared 400s)
    if (
      schemas.length > 0 &&
      !schemas.some((s) => probe.readAgainst(s, answer.contentType, answer.text, answer.body).violations.length === 0)
    )
      return `status ${answer.status} is undeclared and the body fits none of the document's ${answer.status} schemas`;
  }
  // a status declared without content is answered without a body (D423 a status declared without content answers without a body): there is no body to name the field in
  const withoutContent = answer.declared !== undefined && request.operation.responses.get(answer.declared)?.content.size === 0;
  if (request.kind === 'invalid' && request.field !== undefined && !withoutContent && !answer.text.includes(request.field))
    return `the answer does not name the field ${request.field}`;
  return undefined;
}
