// `npm run build`'s compile step: `tsc -b tsconfig.build.json` through TypeScript's own solution builder (the API
// `tsc -b` runs), so that a build says what it does (D292: a first `npm start` was 95 s of silence). It prints how many
// projects there are and roughly how long a first build takes, then one line per package as it starts compiling, and
// the time of each at the end. Incremental exactly as `tsc -b`: a package whose inputs did not change is not compiled
// (and prints nothing). Exit status 1 when any package has type errors (they are printed as tsc prints them).
// test/packaging/build-progress.test.ts runs it on a small solution of its own.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** `node scripts/build.mjs [solution tsconfig]`: this repository's tsconfig.build.json unless told (the script's test). */
const SOLUTION = path.resolve(process.argv[2] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'tsconfig.build.json'));
/**
 * PAYGATE_BUILD_NO_CHECK=1: emit JavaScript and declarations without type-checking the packages (TypeScript's
 * `noCheck`). Only for a caller that type-checks the same sources itself: `npm test` builds dist/ for its fault,
 * packaging and README tests while its `typecheck` precheck checks every package's sources (test/support/build.ts);
 * checking them twice was some 13 CPU-s of a fresh clone's run (docs/benchmarks.md, "npm test: wall time and CPU").
 * The build info records the check as pending, so a later plain `npm run build` checks what this one did not.
 */
const NO_CHECK = process.env.PAYGATE_BUILD_NO_CHECK === '1';
const ROOT = path.dirname(SOLUTION);
/** Measured on the project's 2-core machines (`npm run build` on a fresh clone): 95 s idle, about 110 s under load. */
const FIRST_BUILD_ESTIMATE = 'about 1.5-2 minutes on 2 cores';

/** The solution's projects in build order (tsconfig.build.json lists them dependencies first), with their package names. */
function projects() {
  const solution = ts.readConfigFile(SOLUTION, ts.sys.readFile).config;
  return solution.references.map(({ path: dir }) => {
    const folder = path.join(ROOT, dir);
    const name = JSON.parse(readFileSync(path.join(folder, 'package.json'), 'utf8')).name;
    const config = ts.readConfigFile(path.join(folder, 'tsconfig.json'), ts.sys.readFile).config;
    const buildInfo = path.resolve(folder, config.compilerOptions?.tsBuildInfoFile ?? 'dist/tsconfig.tsbuildinfo');
    return { name, config: path.join(folder, 'tsconfig.json'), firstBuild: !existsSync(buildInfo) };
  });
}

const formatHost = {
  getCanonicalFileName: (f) => f,
  getCurrentDirectory: () => ROOT,
  getNewLine: () => ts.sys.newLine,
};
const pretty = process.stdout.isTTY === true;
const reportDiagnostic = (diagnostic) =>
  process.stderr.write(
    pretty ? ts.formatDiagnosticsWithColorAndContext([diagnostic], formatHost) : ts.formatDiagnostics([diagnostic], formatHost),
  );

const list = projects();
const first = list.filter((p) => p.firstBuild).length;
const started = performance.now();
console.log(
  `Building @paygate packages (tsc -b, incremental): ${list.length} projects` +
    (first > 0
      ? `, ${first} never built here: a first build takes ${FIRST_BUILD_ESTIMATE}, later ones only recompile what changed.`
      : '; only what changed since the last build is compiled (seconds when little did).'),
);

const host = ts.createSolutionBuilderHost(
  ts.sys,
  undefined,
  reportDiagnostic,
  () => undefined,
  () => undefined,
);
const builder = ts.createSolutionBuilder(host, [SOLUTION], NO_CHECK ? { noCheck: true } : {});
const times = [];
let failed = false;
for (;;) {
  const next = builder.getNextInvalidatedProject();
  if (next === undefined) break;
  const index = list.findIndex((p) => path.resolve(p.config) === path.resolve(next.project));
  const name = index < 0 ? path.relative(ROOT, next.project) : list[index].name;
  const compiles = next.kind === ts.InvalidatedProjectKind.Build;
  if (compiles) console.log(`  [${index + 1}/${list.length}] compiling ${name}...`);
  const t0 = performance.now();
  const status = next.done();
  if (compiles) times.push(`${name} ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  if (status !== ts.ExitStatus.Success) failed = true;
}
const total = ((performance.now() - started) / 1000).toFixed(1);
if (failed) {
  console.error(`Build failed after ${total} s: fix the type errors above and run it again.`);
  process.exit(1);
}
console.log(
  times.length === 0
    ? `  all ${list.length} packages up to date (${total} s)`
    : `  compiled ${times.length} of ${list.length} packages in ${total} s (${times.join(', ')})`,
);
