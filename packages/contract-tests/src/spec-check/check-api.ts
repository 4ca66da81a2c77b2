/**
 * `checkApi`: spec-driven contract checks of any deployment against any OpenAPI 3.0/3.1 document (D125, D270-D279),
 * with nothing but credentials. A stateful run:
 *  1. plan: operations in dependency order (what an operation needs, something earlier makes: D271), creates first,
 *     then reads, then updates and actions, deletes last (operation-order.ts);
 *  2. positive: each operation with the values earlier answers carried (pool.ts), the spec's examples and samples for
 *     the rest; a documented 4xx teaches it (a field the error names: an optional input added, a value made unique, a
 *     pooled value swapped; 401/403: another credential set), and an operation that still cannot succeed waits for the
 *     next round, then gets fresh resources (its producer run again with its next example) (D272; checks/positive.ts,
 *     run/stateful-phase.ts);
 *  3. per operation, once it succeeded: its Location, an idempotent replay (same key: same answer, no second effect;
 *     same key and another body: a 4xx), another tenant reading what it made, a child amount above its parent's,
 *     boundary values, no or partial or wrong credentials (run/follow-ups.ts); after every operation, negative data
 *     per field and constraint and an undeclared method (run/sweep.ts) (D276 checks after a 2xx: Location, replay, reuse);
 *  4. deletes, then use-after-free reads of what was deleted, then clean-up of what the run made (D273 contract checker sends only reserved hosts).
 * Each check is a module of `checks/` over the run's shared state (run/state.ts); requests are built and sent by
 * `request/`. Every response is checked (conformance.ts). URLs and e-mail addresses sent point at reserved hosts
 * (safety.ts). Nothing here knows Paygate.
 */
import { readAgainAtEnd, rememberDeleted, useAfterFree } from './checks/stateful.js';
import { planOrder } from './operation-order.js';
import { cleanUp } from './run/cleanup.js';
import { assembleReport, settleOutcomes } from './run/report.js';
import { DeadlineReached, FirstFailure, createRunState, stateOf, type RunState } from './run/state.js';
import { runPhase } from './run/stateful-phase.js';
import { sweep } from './run/sweep.js';
import type { ApiCheckReport, CheckApiOptions } from './types.js';

export async function checkApi(options: CheckApiOptions): Promise<ApiCheckReport> {
  const run = createRunState(options);
  await untilStopped(run, () => checkEveryOperation(run));
  const leftBehind = await cleanUp(run);
  settleOutcomes(run);
  return assembleReport(run, leftBehind);
}

/** Steps 1-4 but the clean-up: the stateful phases, what deletes removed, then the stateless sweep. */
async function checkEveryOperation(run: RunState): Promise<void> {
  const order = planOrder(run.operations, run.r);
  const mainOps = order.filter((op) => op.method !== 'delete');
  const deleteOps = order.filter((op) => op.method === 'delete');
  await runPhase(run, mainOps);
  if (run.checks.has('stateful')) await readAgainAtEnd(run, mainOps);
  await runPhase(run, deleteOps);
  rememberDeleted(run, deleteOps);
  if (run.checks.has('stateful')) await useAfterFree(run);
  for (const op of order) await sweep(run, stateOf(run, op));
}

/** Runs `steps` until they end, the first failure stops them (`failFast`) or the time bound passes. */
async function untilStopped(run: RunState, steps: () => Promise<void>): Promise<void> {
  try {
    await steps();
  } catch (error) {
    if (error instanceof FirstFailure) run.stoppedEarly = true;
    else if (error instanceof DeadlineReached) run.timedOut = true;
    else throw error;
  }
}
