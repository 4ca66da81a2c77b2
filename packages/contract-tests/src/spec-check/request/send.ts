/**
 * Sending one request: bounded per request (`timeoutMs`) and per run (`deadline`), redirects not followed, a 429 waited
 * out per its `Retry-After` (the injected sleep) up to `maxRateLimitWaitMs` in total, then reported with what to do.
 */
import { DeadlineReached, type RunState } from '../run/state.js';
import type { Sent } from './request-spec.js';

export async function send(run: RunState, url: string, init: RequestInit): Promise<Sent | { error: string }> {
  const maxWait = run.maxRateLimitWaitMs;
  let waited = 0;
  for (;;) {
    if (Date.now() > run.deadline) throw new DeadlineReached();
    let response: Response;
    try {
      response = await run.fetch(url, { ...init, signal: AbortSignal.timeout(run.timeoutMs), redirect: 'manual' });
    } catch (error) {
      const e = error as Error;
      return {
        error:
          e.name === 'TimeoutError' ? `no answer within ${run.timeoutMs} ms (the per-request time bound)` : `request failed: ${e.message}`,
      };
    }
    const text = await response.text();
    if (response.status !== 429) return { response, text };
    const retryAfter = Number(response.headers.get('retry-after'));
    const wait = Number.isFinite(retryAfter) && retryAfter >= 0 ? retryAfter * 1000 : 1000;
    if (waited + wait > maxWait) {
      return {
        error: `rate limited (429) for more than ${Math.round(maxWait / 1000)} s: raise the deployment's rate limit for this run (a Paygate gateway: PAYGATE_RATE_LIMIT) or lower the request rate`,
      };
    }
    waited += wait;
    await run.sleep(wait);
  }
}
