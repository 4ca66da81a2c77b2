/**
 * `paygate templates list | eject [NAME...]` (D375 ejecting templates): the built-in templates a project may override. `eject` copies
 * them into the project's template folder (`--out`, else the config's `templates`, else `templates`), each with a
 * first line stamping which built-in it was and the digest of its text, so that generation can report an override
 * whose built-in has changed since.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { builtinTemplateNames, DEFAULT_TEMPLATES_DIR, stampTemplate } from '../../emit/templates.js';
import { EXIT, UsageError, type CliCommand } from '../command.js';
import { loadConfig } from '../config.js';
import { didYouMean } from '../did-you-mean.js';
import { parseArgs } from 'node:util';

function cliVersion(): string {
  const pkg = JSON.parse(readFileSync(fileURLToPath(new URL('../../../package.json', import.meta.url)), 'utf8')) as { version: string };
  return pkg.version;
}

export const command: CliCommand = {
  name: 'templates',
  summary: 'list the built-in templates, or eject them into a folder that overrides them (--templates DIR)',
  usage: `Usage: paygate templates list
       paygate templates eject [NAME...] [--out DIR] [--force] [--config FILE]

list    the built-in templates by name (client/client, partials/header, ...)
eject   copies the named templates (all without a NAME) into DIR (default: the config's "templates", else
        templates). Generate with --templates DIR (or "templates" in the config): a file there replaces the built-in
        template or partial of the same name, the rest stay built-in. The first line of an ejected file is a stamp
        naming the built-in it came from; when a later @paygate/cli changes that built-in, generation warns and
        names the file. Keep the line.

Flags:
  --out DIR       where to eject
  --force         overwrite files that exist (default: refuse, naming them)
  --config FILE   the config file (default paygate.config.* or package.json's "paygate" key)

Exit codes: 0 done, 2 unknown template or flag, 3 files exist (without --force).

Example:
  npx paygate templates eject client/client --out templates`,
  async run(argv, io) {
    let parsed;
    try {
      parsed = parseArgs({
        args: [...argv],
        options: { out: { type: 'string' }, force: { type: 'boolean' }, config: { type: 'string' } },
        allowPositionals: true,
        strict: true,
      });
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    const [action, ...names] = parsed.positionals;
    const builtins = builtinTemplateNames();
    if (action === 'list') {
      io.stdout(`${builtins.join('\n')}\n`);
      return EXIT.ok;
    }
    if (action !== 'eject')
      throw new UsageError(`the first word is list or eject${action === undefined ? '' : `, not ${JSON.stringify(action)}`}.`);
    const wanted = names.length === 0 ? builtins : names.map((n) => n.replace(/\.hbs$/, ''));
    for (const name of wanted) {
      if (!builtins.includes(name)) {
        throw new UsageError(`there is no built-in template ${name}.${didYouMean(name, builtins)} \`paygate templates list\` names them.`);
      }
    }
    const configured = parsed.values.out === undefined ? (await loadConfig(io.cwd, parsed.values.config)).config.templates : undefined;
    const out = path.resolve(io.cwd, parsed.values.out ?? configured ?? 'templates');
    const targets = wanted.map((name) => ({ name, file: path.join(out, `${name}.hbs`) }));
    const existing = targets.filter((t) => existsSync(t.file));
    if (existing.length > 0 && parsed.values.force !== true) {
      io.stderr(
        `paygate templates: these files exist and were left alone: ${existing.map((t) => path.relative(io.cwd, t.file)).join(', ')}. Pass --force to overwrite them (your changes are lost), or --out another folder.\n`,
      );
      return EXIT.environment;
    }
    const version = cliVersion();
    for (const { name, file } of targets) {
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, stampTemplate(name, readFileSync(path.join(DEFAULT_TEMPLATES_DIR, `${name}.hbs`), 'utf8'), version));
      io.stdout(`ejected ${path.relative(io.cwd, file)}\n`);
    }
    io.stderr(`Generate with --templates ${path.relative(io.cwd, out) || '.'} (or "templates" in paygate.config) to use them.\n`);
    return EXIT.ok;
  },
};
