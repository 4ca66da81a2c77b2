/**
 * Fresh resources (D272 contract request bodies per media type): the operation that made a key runs again (with its next example, learning from its own 4xx
 * as a positive request does) so a consumer that failed with the old value gets a new one.
 */
import type { Scalar } from '../pool.js';
import { positiveSpec } from '../request/positive-request.js';
import { learnFrom } from './learn-from-answer.js';
import { runCase } from './run-case.js';
import type { OpState, RunState } from './state.js';

/** A new value of `key` (not `exclude`) from running a producer again, or undefined when none made one. */
export async function remake(run: RunState, key: string, exclude: Scalar | undefined, depth: number): Promise<Scalar | undefined> {
  if (depth > 1) return undefined;
  const made = exclude !== undefined ? run.pool.find(key, exclude)?.from : undefined;
  const producers = [...(made ? [made] : []), ...(run.producers.get(key) ?? []).map((p) => p.operationId)].filter(
    (id, i, all) => all.indexOf(id) === i,
  );
  for (const id of producers) {
    const producer = run.states.get(id);
    if (producer === undefined || producer.outcome !== 'passed' || producer.success === undefined) continue;
    const examples = producer.success.media?.examples.length ?? 1;
    for (let e = 0; e < Math.max(1, examples); e++) {
      if (examples > 1) producer.exampleIndex = (producer.exampleIndex + 1) % examples;
      const value = await runProducer(run, producer, key, exclude);
      if (value !== undefined) return value;
    }
  }
  return undefined;
}

/** One producer's positive request, sent again until a 2xx or nothing left to learn (at most 4 lessons). */
async function runProducer(run: RunState, producer: OpState, key: string, exclude: Scalar | undefined): Promise<Scalar | undefined> {
  // what the producer's own answers teach applies here too (a reference the API keeps unique...)
  for (let lesson = 0; lesson < 4; lesson++) {
    const spec = positiveSpec(run, producer, producer.success!.set, {}, false);
    if ('waiting' in spec) break;
    spec.note = `to make a fresh ${key}`;
    const before = run.pool.newest(key, () => true)?.seq ?? -1;
    const sent = await runCase(run, producer, 'stateful', spec, () => undefined);
    if (sent === undefined) break;
    if (sent.response.status < 300) {
      const newest = run.pool.newest(key, () => true);
      if (newest !== undefined && newest.seq > before && newest.value !== exclude) return newest.value;
      break;
    }
    if (sent.response.status >= 500 || learnFrom(run, producer, spec, sent.text) === undefined) break;
  }
  return undefined;
}
