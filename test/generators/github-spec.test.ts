/**
 * Generic proof: the generators handle GitHub's REST spec (OpenAPI 3.0.3, 1,223 operations). Generates the contract
 * (type layer, route table, enums), the server scaffold and the client and type-checks the result with `tsc
 * --noEmit` under the repo's strict base tsconfig (support/compile-generated.ts). Slow (~1-2 min).
 */
import { describe, expect, it } from 'vitest';
import { generateAndCompile } from './support/compile-generated.js';

const GITHUB_SPEC = 'node_modules/@octokit/openapi/generated/api.github.com.json';

describe("GitHub's REST spec", () => {
  it('generates server + client + types that compile under the strict tsconfig', { timeout: 240_000 }, async () => {
    const outcome = await generateAndCompile({
      openapi: GITHUB_SPEC,
      targets: ['contract', 'server', 'client'],
      label: 'github',
      maxOldSpaceMiB: 8192,
    });
    console.log(`GitHub spec: generate ${(outcome.generateMs / 1000).toFixed(1)} s, tsc --noEmit ${(outcome.tscMs / 1000).toFixed(1)} s`);
    expect(outcome.result.model.operations).toHaveLength(1223);
    expect(new Set(outcome.result.model.operations.map((o) => o.operationId)).size).toBe(1223);
    expect(outcome.diagnostics).toBe('');
    expect(outcome.tscCode).toBe(0);
  });
});
