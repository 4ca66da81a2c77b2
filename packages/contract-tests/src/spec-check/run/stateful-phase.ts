/**
 * A phase of the stateful run (D270 stateful contract checker; D272 contract request bodies per media type): every operation's positive request in rounds (at most 6), each followed at
 * once by its follow-up checks when it got its 2xx (or failed); between rounds without progress a bounded wait for what
 * the API does on its own time (`settleMs`); then a final try for what is left, recorded as it ends.
 */
import { attemptPositive, judgeRefusal, type PositiveResult } from '../checks/positive.js';
import { setsFor } from '../credentials.js';
import type { OperationInfo } from '../document.js';
import { positiveSpec } from '../request/positive-request.js';
import { followUps } from './follow-ups.js';
import { stateOf, type OpState, type RunState } from './state.js';

export async function runPhase(run: RunState, ops: readonly OperationInfo[]): Promise<void> {
  const pending = ops.map((op) => stateOf(run, op));
  let settleLeft = run.settleMs;
  for (let round = 0; round < 6 && pending.some((s) => s.outcome === undefined); round++) {
    let progress = false;
    for (const state of pending) {
      if (state.outcome !== undefined) continue;
      const result = await attemptPositive(run, state, false);
      if (result === 'passed' || result === 'failed') {
        progress = true;
        await finishPositive(run, state, result);
      }
    }
    if (!progress && round >= 1) {
      // what is left may wait for something the API does on its own time (a worker): give it a moment, bounded
      if (settleLeft <= 0) break;
      const wait = Math.min(settleLeft, 500 * 2 ** Math.min(round, 3));
      settleLeft -= wait;
      await run.sleep(wait);
    }
  }
  for (const state of pending) if (state.outcome === undefined) await finalTry(run, state);
}

/** The last positive try of an operation no round got through; its request stays the basis of its later checks. */
async function finalTry(run: RunState, state: OpState): Promise<void> {
  const result = await attemptPositive(run, state, true);
  judgeRefusal(state, result);
  const spec = positiveSpec(run, state, setsFor(state.op, run.sets, run.rules, run.learntSets)[0], {}, true);
  if (!('waiting' in spec)) run.lastSpec.set(state.op.operationId, spec);
  await finishPositive(run, state, result);
}

async function finishPositive(run: RunState, state: OpState, result: PositiveResult): Promise<void> {
  if (result === 'passed') state.outcome = 'passed';
  else state.outcome = result === 'failed' ? 'failed' : 'unreached';
  await followUps(run, state);
}
