/**
 * Paygate's own emitters as plugins (D370, one emitter API for Paygate and its users): each emitter of
 * generators/src/emit runs through the same plugin runner as a project's plugins, so ordering, progress lines, the
 * duplicate-path check, `generate` and `check` treat them alike. They write complete files (their headers are part of
 * their templates) through the pipeline's raw sink, which the public context does not offer.
 */
import { runEmitter, type DocumentEmitContext, type EmitContext, type Emitter, type Target } from '../emit/context.js';
import { definePlugin, rawSinkOf, type PaygatePlugin } from './api.js';

/** A plugin with the target it belongs to (`--targets` selects Paygate's own plugins by it). */
export interface TargetPlugin extends PaygatePlugin {
  target: Target;
}

/** One of Paygate's emitters as a plugin, reading the run's emit contexts. */
export function emitterPlugin(emitter: Emitter, contexts: { context: EmitContext; documentContext: DocumentEmitContext }): TargetPlugin {
  return definePlugin({
    name: emitter.name,
    target: emitter.target,
    async emit(_model, ctx) {
      const sink = rawSinkOf(ctx);
      if (sink === undefined) throw new Error(`Paygate's ${emitter.name} emitter runs only inside the pipeline.`);
      for (const file of await runEmitter(emitter, contexts)) sink(file);
    },
  });
}
