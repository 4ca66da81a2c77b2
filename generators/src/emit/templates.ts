import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Handlebars from 'handlebars';
import { compareStrings } from '../util/sorted.js';
import { helpers } from './helpers.js';

/** Repo-root `templates/` directory (generators/src/emit -> ../../../templates). */
export const DEFAULT_TEMPLATES_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../templates');

export interface TemplateEngine {
  /** Renders `templates/<name>.hbs` with a view model; output is normalised to LF with exactly one trailing newline. */
  render(name: string, view: object): string;
}

/** One isolated Handlebars environment: `{ noEscape: true, strict: true }`, helpers from helpers.ts, partials from templates/partials. */
export function createTemplateEngine(dir: string = DEFAULT_TEMPLATES_DIR): TemplateEngine {
  const hbs = Handlebars.create();
  for (const [name, fn] of Object.entries(helpers)) hbs.registerHelper(name, fn as Handlebars.HelperDelegate);
  const partialsDir = path.join(dir, 'partials');
  for (const file of readdirSync(partialsDir).sort(compareStrings)) {
    if (!file.endsWith('.hbs')) continue;
    hbs.registerPartial(file.slice(0, -4), readFileSync(path.join(partialsDir, file), 'utf8'));
  }
  const cache = new Map<string, Handlebars.TemplateDelegate>();
  return {
    render(name, view) {
      let template = cache.get(name);
      if (template === undefined) {
        const source = readFileSync(path.join(dir, `${name}.hbs`), 'utf8');
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
