/**
 * `npm run lint:spec`: lints openapi/openapi.yaml with Redocly (openapi/redocly.yaml: `recommended` plus the
 * project's stricter rules) and parses openapi/asyncapi.yaml with @asyncapi/parser. Any error or warning fails.
 */
import { lint, loadConfig } from '@redocly/openapi-core';
import { Parser, fromFile } from '@asyncapi/parser';
import { relative } from 'node:path';

const OPENAPI = 'openapi/openapi.yaml';
const ASYNCAPI = 'openapi/asyncapi.yaml';
// Spectral severities used by @asyncapi/parser: 0 error, 1 warning, 2 information, 3 hint.
const ASYNCAPI_FAILING_SEVERITY = 1;

async function lintOpenApi(): Promise<number> {
  const config = await loadConfig({ configPath: 'openapi/redocly.yaml' });
  const problems = await lint({ ref: OPENAPI, config });
  for (const problem of problems) {
    const where = problem.location[0];
    const file = where ? relative(process.cwd(), where.source.absoluteRef) : OPENAPI;
    console.error(`${problem.severity} ${problem.ruleId} ${file}${where?.pointer ?? ''}\n  ${problem.message}`);
  }
  return problems.length;
}

async function lintAsyncApi(): Promise<number> {
  const { diagnostics } = await fromFile(new Parser(), ASYNCAPI).parse();
  const failing = diagnostics.filter((d) => d.severity <= ASYNCAPI_FAILING_SEVERITY);
  for (const d of failing) {
    console.error(`${d.severity === 0 ? 'error' : 'warning'} ${d.code} ${ASYNCAPI}#/${d.path.join('/')}\n  ${d.message}`);
  }
  return failing.length;
}

const started = performance.now();
console.log(`Linting ${OPENAPI} (Redocly, openapi/redocly.yaml) and parsing ${ASYNCAPI}...`);
const [openApiProblems, asyncApiProblems] = await Promise.all([lintOpenApi(), lintAsyncApi()]);
const took = Math.round(performance.now() - started);
if (openApiProblems + asyncApiProblems > 0) {
  console.error(
    `\nSpec lint failed: ${openApiProblems} OpenAPI problem(s), ${asyncApiProblems} AsyncAPI problem(s) (${took} ms).` +
      '\nFix the files named above; every rule that is turned off is justified in openapi/redocly.yaml.',
  );
  process.exit(1);
}
console.log(`Spec lint clean: 0 errors, 0 warnings (${took} ms).`);
