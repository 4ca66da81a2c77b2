import type { ReferenceRuntime } from '../runtime.js';

/**
 * A `ReferenceRuntime` whose properties are read from `get()` on each access: lets the HTTP app be built before the
 * database is open. Reading it before then is a bug and fails loudly.
 */
export function lateBoundRuntime(get: () => ReferenceRuntime | undefined): ReferenceRuntime {
  return new Proxy({} as ReferenceRuntime, {
    get(_target, key) {
      const runtime = get();
      if (runtime === undefined) throw new Error(`paygate: runtime.${String(key)} read before the database was opened`);
      return Reflect.get(runtime, key, runtime);
    },
    has: (_target, key) => key in (get() ?? {}),
  });
}
