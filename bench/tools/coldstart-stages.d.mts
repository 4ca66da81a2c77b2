/** Types of coldstart-stages.mjs (plain JavaScript so it runs on bare `node`; bench/sections/startup.ts imports it). */
export interface Stage {
  stage: string;
  ms: number;
  cpuMs: number;
}
export interface Target {
  name: string;
  args: string[];
  env: Record<string, string | undefined>;
  path: string;
  headers?: Record<string, string>;
}
export interface ColdStart {
  ms: number;
  cpuMs: number | undefined;
  stages: Stage[];
  firstRequestMs: number | undefined;
}
export interface ColdStartResult {
  name: string;
  ms: number;
  cpuMs: number;
  roundsMs: number[];
  firstRequestMs: number;
  stages: Stage[];
}
export function coldStartOnce(target: Target): Promise<ColdStart>;
export function measureColdStarts(o: { targets: Target[]; rounds?: number; log?: (line: string) => void }): Promise<ColdStartResult[]>;
export function gatewayTarget(
  name: string,
  o: { dataDir?: string; databaseUrl?: string; orderId: string; partner: { id: string; secret: string }; root?: string },
): Target;
export function formatColdStarts(results: ColdStartResult[]): string;
