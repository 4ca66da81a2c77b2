/** Next retry delay in ms after failed attempt number `attempt` (1-based), or null to give up. +-jitter (fraction). */
export function retryDelayMs(schedule: readonly number[], attempt: number, jitter = 0.1, random: () => number = Math.random): number | null {
  const base = schedule[attempt - 1];
  if (base === undefined) return null;
  const factor = 1 + jitter * (random() * 2 - 1);
  return Math.max(0, Math.round(base * 1000 * factor));
}
