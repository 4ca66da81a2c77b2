/** What the corpus runner records per document and per shard (bench/corpus/results/*.json, read by `--merge`). */

/** Paygate's outcome on one document, in pipeline order: the first stage that fails names it. */
export type PaygateOutcome =
  | 'ok'
  | 'answers-nonconforming'
  | 'refused'
  | 'generate-crashed'
  | 'tsc-errors'
  | 'docs-failed'
  | 'scaffold-refused'
  | 'probe-failed'
  | 'timeout'
  | 'memory-bound'
  | 'worker-crashed';

/** openapi-typescript 7's outcome on the same document. */
export type PeerOutcome = 'ok' | 'refused' | 'tsc-errors' | 'timeout' | 'memory-bound' | 'worker-crashed';

/** One answer of the scaffold that is not what the spec declares (status, shape, or the field not named). */
export interface ProbeException {
  kind: 'valid' | 'invalid' | 'unauthenticated';
  label: string;
  expected: number;
  status: number;
  problem: string;
  /** The answer's first characters. */
  answer: string;
}

export interface ProbeSummary {
  operations: number;
  requests: number;
  conforming: number;
  /** Answers whose status the operation does not declare, read against the document's schema for that status. */
  undeclared: number;
  /** Requests the probe cannot build, by reason (a body in no JSON media type, a `#` in the path template). */
  notProbed: Record<string, number>;
  /** "Invalid" requests the schema in fact accepts (the probe's mistake, not the scaffold's): answered 501, rightly. */
  probeMistakes: number;
  exceptionCount: number;
  /** The first exceptions (at most 10). */
  exceptions: ProbeException[];
}

export interface PaygateResult {
  outcome: PaygateOutcome;
  /** The refusal's or failure's message (first lines). */
  message?: string;
  /** tsc's first diagnostics. */
  diagnostics?: string[];
  /** What generation degraded instead of refusing (count). */
  warnings?: number;
  ms: { generate?: number; tsc?: number; docs?: number; scaffold?: number };
  probe?: ProbeSummary;
}

export interface PeerResult {
  outcome: PeerOutcome;
  message?: string;
  diagnostics?: string[];
  ms: { generate?: number; tsc?: number };
}

export interface DocumentResult {
  /** Path under the directory's `api/` folder, e.g. `stripe.com.json`. */
  document: string;
  bytes: number;
  openapi: string;
  operations: number;
  /** `info.license.name` as the document records it (null: none recorded). */
  licence: string | null;
  /** The first `info.x-origin[].url`: where the directory took the document from. */
  origin: string | null;
  paygate: PaygateResult;
  peer: PeerResult;
  /** The worker's resident memory after the document (MiB). */
  rssMiB: number;
  ms: number;
}

export interface ShardFile {
  directory: { package: string; version: string; documents: number };
  /** `3/8`, `sample 20`, `documents a,b`. */
  selection: string;
  shard: { index: number; count: number } | null;
  /** Documents the selection holds; `results.length` of them are done. */
  planned: string[];
  complete: boolean;
  startedAt: string;
  finishedAt: string | null;
  /** Wall time so far (ms). */
  wallMs: number;
  /** Peak resident memory of any worker process (MiB) and of the runner itself. */
  peakWorkerMiB: number;
  peakRunnerMiB: number;
  workers: number;
  /** The toolchain the run used. */
  tools: { node: string; typescript: string; openapiTypescript: string };
  results: DocumentResult[];
}
