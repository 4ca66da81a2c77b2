import { setFlagsFromString } from 'node:v8';

/**
 * Tell V8 to favour memory over speed in its JavaScript heap (smaller young generation, slower heap growth), once the
 * PGlite gateway is serving. Why: a PGlite gateway is the sandbox on a developer's machine, where memory is the budget
 * (D68 PGlite memory settings and baseline compiler); once a read became one round into PostgreSQL (D86) it answered twice as many requests, and V8 grew its heap
 * with the allocation rate: a much higher peak under the GET load than with this flag, which costs a little CPU per
 * request (bench/tools/get-order-cpu.ts; numbers in docs/benchmarks.md#compact-js-heap). Why only after start-up: set
 * while the modules load and the database opens, it made start-up collect garbage far more often and the first
 * answer later (D86 named prepared statements on PostgreSQL).
 * Process-wide, like `--liftoff-only`; this module imports nothing of PGlite, so `paygate serve` can call it.
 */
export function useCompactJsHeap(): void {
  setFlagsFromString('--optimize-for-size');
}
