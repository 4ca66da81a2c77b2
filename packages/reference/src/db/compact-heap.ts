import { setFlagsFromString } from 'node:v8';

/**
 * Tell V8 to favour memory over speed in its JavaScript heap (smaller young generation, slower heap growth), once the
 * PGlite gateway is serving. Why: a PGlite gateway is the sandbox on a developer's machine, where memory is the budget
 * (D68); once a read became one round into PostgreSQL (D86) it answered twice as many requests, and V8 grew its heap
 * with the allocation rate: ~250 MiB peak under the GET load instead of ~165 MiB with this flag, for ~10% more CPU per
 * request (bench/tools/get-order-cpu.ts). Why only after start-up: set while the modules load and the database opens,
 * it made start-up collect garbage far more often, ~2.1 s -> ~1.8 s to the first answer without it (D86).
 * Process-wide, like `--liftoff-only`; this module imports nothing of PGlite, so `paygate serve` can call it.
 */
export function useCompactJsHeap(): void {
  setFlagsFromString('--optimize-for-size');
}
