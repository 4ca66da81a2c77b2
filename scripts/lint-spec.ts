/**
 * `npm run lint:spec`: lints openapi/openapi.yaml with Redocly (openapi/redocly.yaml: `recommended` plus the
 * project's stricter rules) and parses openapi/asyncapi.yaml, through the same parse layer the generators use.
 * Unlike generation, which refuses only on errors, any warning fails here too.
 */
import { formatProblem, loadOpenApi, ruleDocs, SpecLintError } from '../generators/src/parse/openapi.js';
import { loadAsyncApi } from '../generators/src/parse/asyncapi.js';

const OPENAPI = 'openapi/openapi.yaml';
const ASYNCAPI = 'openapi/asyncapi.yaml';

const started = performance.now();
console.log(`Linting ${OPENAPI} (Redocly, openapi/redocly.yaml) and parsing ${ASYNCAPI}...`);
try {
  const [openapi, asyncapi] = await Promise.all([
    loadOpenApi({ input: OPENAPI, lintConfig: 'openapi/redocly.yaml', lint: 'report' }),
    loadAsyncApi(ASYNCAPI),
  ]);
  for (const problem of openapi.problems) console.error(formatProblem(problem));
  for (const problem of asyncapi.problems) console.error(`warning ${problem}`);
  const took = Math.round(performance.now() - started);
  if (openapi.problems.length + asyncapi.problems.length > 0) {
    if (openapi.problems.length > 0)
      console.error(`What each rule asks for:\n${ruleDocs(openapi.problems, 'openapi/redocly.yaml').join('\n')}`);
    console.error(
      `\nSpec lint failed: ${openapi.problems.length} OpenAPI problem(s), ${asyncapi.problems.length} AsyncAPI warning(s) (${took} ms).` +
        '\nFix the lines named above; every rule that is turned off is justified in openapi/redocly.yaml.',
    );
    process.exit(1);
  }
  console.log(`Spec lint clean: 0 errors, 0 warnings (${took} ms).`);
} catch (error) {
  console.error(error instanceof SpecLintError || error instanceof Error ? error.message : String(error));
  process.exit(1);
}
