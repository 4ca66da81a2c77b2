/** `paygate release`: stores the current contract as the released `info.version` (the baseline of the compatibility gate). */
import { parseArgs } from 'node:util';
import { release } from '../../diff/release.js';
import { CURRENT_SPEC, RELEASED_DIR } from '../../diff/released.js';
import { FAIL_ON_LEVELS } from '../../diff/types.js';
import { EXIT, UsageError, type CliCommand } from '../command.js';

const USAGE = `Usage: paygate release [--spec ${CURRENT_SPEC}] [--released ${RELEASED_DIR}] [--date YYYY-MM-DD] [--fail-on LEVEL]

Releases the current contract as its info.version: writes <released>/<version>.json (the bundled OpenAPI document)
and <version>.asyncapi.json (the AsyncAPI document beside the spec), records the version and date in
<released>/releases.yaml (the docs changelog) and empties allowed-breaking-changes.yaml. Refused when the version is
already released with other content, is older than the newest release, or the compatibility gate fails.
Commit the written files.

--date      the release date recorded (default: today, UTC)
--fail-on   the gate's level, as in \`paygate diff --gate\` (default breaking; Paygate's own npm run release: warning)

Exit codes: 0 released (or already released unchanged), 1 refused (the message says what to change), 2 usage,
3 unreadable spec.
Example:
  npx paygate release --spec openapi.yaml --released released   (in the Paygate repository: npm run release)`;

const DATE = /^\d{4}-\d{2}-\d{2}$/;

export const command: CliCommand = {
  name: 'release',
  summary: 'release the current contract as info.version (baseline of the compatibility gate and the changelog)',
  usage: USAGE,
  async run(argv, io) {
    let values;
    try {
      ({ values } = parseArgs({
        args: [...argv],
        strict: true,
        options: {
          spec: { type: 'string', default: CURRENT_SPEC },
          released: { type: 'string', default: RELEASED_DIR },
          date: { type: 'string' },
          'fail-on': { type: 'string' },
          help: { type: 'boolean', short: 'h', default: false },
        },
      }));
    } catch (error) {
      throw new UsageError(error instanceof Error ? error.message : String(error));
    }
    if (values.help) {
      io.stdout(`${USAGE}\n`);
      return EXIT.ok;
    }
    const date = values.date ?? new Date().toISOString().slice(0, 10);
    if (!DATE.test(date)) throw new UsageError(`--date ${date}: expected YYYY-MM-DD`);
    const failOn = FAIL_ON_LEVELS.find((l) => l === (values['fail-on'] ?? 'breaking'));
    if (failOn === undefined) throw new UsageError(`--fail-on ${values['fail-on']}: expected one of ${FAIL_ON_LEVELS.join(', ')}`);
    const outcome = await release({
      cwd: io.cwd,
      spec: values.spec,
      releasedDir: values.released,
      date,
      failOn,
      progress: (line) => io.stderr(`[release] ${line}\n`),
    });
    switch (outcome.status) {
      case 'released':
        io.stdout(`Released ${outcome.version}:\n${outcome.files.map((f) => `  wrote ${f}`).join('\n')}\nCommit these files.\n`);
        return EXIT.ok;
      case 'unchanged':
        io.stdout(`${outcome.version} is already released with this content; nothing to do.\n`);
        return EXIT.ok;
      case 'refused':
        io.stderr(`${outcome.message}\n`);
        return EXIT.failed;
    }
  },
};
