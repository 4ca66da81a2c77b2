import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Handlebars from 'handlebars';
import leven from 'leven';
import { compareStrings } from '../util/sorted.js';
import type { EmitWarning } from './context.js';
import { helpers } from './helpers.js';

/** Repo-root `templates/` directory (generators/src/emit -> ../../../templates). */
export const DEFAULT_TEMPLATES_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../templates');

export interface TemplateEngine {
  /** Renders `templates/<name>.hbs` with a view model; output is normalised to LF with exactly one trailing newline. */
  render(name: string, view: object): string;
}

/**
 * One isolated Handlebars environment: `{ noEscape: true, strict: true }`, helpers from helpers.ts, partials from
 * templates/partials. `overrides` (by name: `client/client`, `partials/header`) replace built-in templates and partials
 * of the same name (D374, template overrides); the rest stay built-in.
 */
export function createTemplateEngine(dir: string = DEFAULT_TEMPLATES_DIR, overrides?: ReadonlyMap<string, string>): TemplateEngine {
  const hbs = Handlebars.create();
  for (const [name, fn] of Object.entries(helpers)) hbs.registerHelper(name, fn as Handlebars.HelperDelegate);
  const partialsDir = path.join(dir, 'partials');
  for (const file of readdirSync(partialsDir).sort(compareStrings)) {
    if (!file.endsWith('.hbs')) continue;
    const name = file.slice(0, -4);
    hbs.registerPartial(name, overrides?.get(`partials/${name}`) ?? readFileSync(path.join(partialsDir, file), 'utf8'));
  }
  const cache = new Map<string, Handlebars.TemplateDelegate>();
  return {
    render(name, view) {
      let template = cache.get(name);
      if (template === undefined) {
        const source = overrides?.get(name) ?? readFileSync(path.join(dir, `${name}.hbs`), 'utf8');
        template = hbs.compile(source, { noEscape: true, strict: true });
        cache.set(name, template);
      }
      return normalizeOutput(template(view));
    },
  };
}

/** LF line endings, no trailing spaces, no runs of 3+ blank lines, exactly one final newline. */
export function normalizeOutput(text: string): string {
  return (
    text
      .replace(/\r\n?/g, '\n')
      .replace(/[ \t]+$/gm, '')
      .replace(/\n{3,}/g, '\n\n')
      .replace(/\s+$/, '') + '\n'
  );
}

/**
 * The built-in templates a project may override or eject, by name (`client/client`, `partials/header`). The docs
 * site's templates are `paygate docs`' and are not among them.
 */
export function builtinTemplateNames(dir: string = DEFAULT_TEMPLATES_DIR): string[] {
  const names: string[] = [];
  for (const folder of readdirSync(dir).sort(compareStrings)) {
    if (folder === 'docs' || !statSync(path.join(dir, folder)).isDirectory()) continue;
    for (const file of readdirSync(path.join(dir, folder)).sort(compareStrings)) {
      if (file.endsWith('.hbs')) names.push(`${folder}/${file.slice(0, -4)}`);
    }
  }
  return names;
}

/** The first 12 hex digits of the SHA-256 of a built-in template's text: what an ejected copy's stamp records. */
export function templateDigest(source: string): string {
  return createHash('sha256').update(source.replace(/\r\n?/g, '\n')).digest('hex').slice(0, 12);
}

/**
 * The first line `paygate templates eject` writes (D375, the ejected template's stamp): which built-in it was and the
 * digest of its text then. A Handlebars comment; the engine drops the line before compiling.
 */
const STAMP = /^\{\{!--\s*paygate-template\s+(\S+)\s+sha256:([0-9a-f]+)[^\n]*--\}\}[ \t]*\r?\n/;

export function stampTemplate(name: string, source: string, cliVersion: string): string {
  return `{{!-- paygate-template ${name} sha256:${templateDigest(source)} (ejected from @paygate/cli ${cliVersion}; keep this line: it tells you when the built-in changes) --}}\n${source}`;
}

/** An override folder read: the templates by name (stamps removed), and what is wrong with them. */
export interface TemplateOverrides {
  templates: Map<string, string>;
  /** Stale, unstamped or misplaced overrides, each naming its file and the fix (printed as warnings). */
  warnings: EmitWarning[];
}

function walk(dir: string, prefix = ''): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(path.join(dir, prefix), { withFileTypes: true }).sort((a, b) => compareStrings(a.name, b.name))) {
    const rel = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory()) found.push(...walk(dir, rel));
    else if (entry.name.endsWith('.hbs')) found.push(rel);
  }
  return found;
}

/**
 * Reads a project's template folder: every `<folder>/<name>.hbs` that has a built-in namesake replaces it. An override
 * whose stamp names another digest than the built-in's now is reported (the built-in changed since it was ejected: the
 * view model it reads may have too), as are one without a stamp and one that replaces nothing (a typo).
 */
export function readTemplateOverrides(
  overrideDir: string,
  builtinDir: string = DEFAULT_TEMPLATES_DIR,
  shownAs = overrideDir,
): TemplateOverrides {
  const builtins = builtinTemplateNames(builtinDir);
  const templates = new Map<string, string>();
  const warnings: EmitWarning[] = [];
  if (!existsSync(overrideDir)) return { templates, warnings };
  for (const rel of walk(overrideDir)) {
    const name = rel.slice(0, -4);
    const file = `${shownAs}/${rel}`;
    if (!builtins.includes(name)) {
      const near = builtins
        .map((b) => ({ b, d: leven(b, name) }))
        .filter(({ d }) => d <= 2)
        .sort((x, y) => x.d - y.d)[0]?.b;
      warnings.push({
        pointer: file,
        problem: `this template replaces nothing: there is no built-in template ${name}.`,
        fix: `${near === undefined ? '' : `Did you mean ${near}? `}\`paygate templates list\` names the built-in templates.`,
      });
      continue;
    }
    const text = readFileSync(path.join(overrideDir, rel), 'utf8');
    const stamp = STAMP.exec(text);
    const builtinDigest = templateDigest(readFileSync(path.join(builtinDir, rel), 'utf8'));
    if (stamp === null) {
      warnings.push({
        pointer: file,
        problem: `this override has no paygate-template stamp, so Paygate cannot tell you when the built-in ${name} changes.`,
        fix: `Start from \`paygate templates eject ${name}\` (its first line is the stamp), or add the line {{!-- paygate-template ${name} sha256:${builtinDigest} --}} once it matches this version.`,
      });
    } else if (stamp[1] !== name || stamp[2] !== builtinDigest) {
      warnings.push({
        pointer: file,
        problem: `this override was ejected from ${stamp[1] !== name ? `another template (${stamp[1]})` : `an older built-in ${name} (sha256:${stamp[2]}; this @paygate/cli's is sha256:${builtinDigest})`}: the data it renders may have changed, and the output may not compile.`,
        fix: `Eject the current one (\`paygate templates eject ${name} --out <another folder>\`), carry your changes over, and keep its stamp line.`,
      });
    }
    templates.set(name, stamp === null ? text : text.slice(stamp[0].length));
  }
  return { templates, warnings };
}
