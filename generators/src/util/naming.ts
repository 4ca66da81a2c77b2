/** Identifier helpers shared by the model builder and emitters (pure, unit-tested). */

const RESERVED = new Set(
  (
    'break case catch class const continue debugger default delete do else enum export extends false finally for function if ' +
    'import in instanceof new null return super switch this throw true try typeof var void while with yield let static ' +
    'implements interface package private protected public await'
  ).split(' '),
);

/** Splits any identifier-ish text (kebab, snake, camel, spaces, slashes, braces) into lower-case words. */
export function words(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter((w) => w.length > 0)
    .map((w) => w.toLowerCase());
}

function capitalize(word: string): string {
  return word.length === 0 ? word : word[0]!.toUpperCase() + word.slice(1);
}

export function camelCase(text: string): string {
  const parts = words(text);
  const joined = parts.map((w, i) => (i === 0 ? w : capitalize(w))).join('');
  return /^[0-9]/.test(joined) ? `_${joined}` : joined;
}

export function pascalCase(text: string): string {
  const joined = words(text).map(capitalize).join('');
  return /^[0-9]/.test(joined) ? `_${joined}` : joined;
}

/** A valid JS identifier for use as a variable/binding (reserved words get a trailing underscore). */
export function safeIdentifier(text: string): string {
  const id = camelCase(text) || '_';
  return RESERVED.has(id) ? `${id}_` : id;
}

/** Naive English singular: refunds -> refund, entries -> entry, addresses -> address, status -> status. */
export function singularize(word: string): string {
  if (/ies$/i.test(word)) return word.slice(0, -3) + (word.endsWith('IES') ? 'Y' : 'y');
  if (/(ss|us|is)$/i.test(word)) return word;
  if (/(sh|ch|x|z|ss)es$/i.test(word)) return word.slice(0, -2);
  if (/s$/i.test(word)) return word.slice(0, -1);
  return word;
}

/**
 * Stable operationId synthesised from method + path when the spec has none:
 * `GET /pg/orders/{order_id}/` -> `getPgOrdersByOrderId`.
 */
export function synthesizeOperationId(method: string, path: string): string {
  const parts = path
    .split('/')
    .filter((s) => s.length > 0)
    .map((segment) => {
      const param = /^\{(.+)\}$/.exec(segment);
      return param ? `by ${param[1]!}` : segment;
    });
  return camelCase([method.toLowerCase(), ...parts].join(' '));
}

/**
 * OpenAPI path template -> Express 5 path (`/orders/{order_id}` -> `/orders/:order_id`); names that are not
 * identifiers are quoted (`{thing-id}` -> `:"thing-id"`) so `req.params` keeps the spec's name.
 */
export function toExpressPath(path: string): string {
  return path.replace(/\{([^}]+)\}/g, (_m, name: string) =>
    /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? `:${name}` : `:${JSON.stringify(name)}`,
  );
}

/** Quotes a property key only when needed for a TS object type / literal. */
export function propertyKey(name: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? name : JSON.stringify(name);
}

/**
 * Client method name: the operationId (camelCased) with the tag noun (plural first, then singular)
 * removed as a whole camel-case word run: createOrder/Orders -> create, listRefunds/Refunds -> list.
 * Returns the camelCased operationId when nothing sensible is left.
 */
export function methodNameForTag(operationId: string, tag: string | undefined): string {
  const id = camelCase(operationId);
  if (tag === undefined) return id;
  const plural = pascalCase(tag);
  const nouns = [
    ...new Set([
      plural,
      pascalCase(
        words(tag)
          .map((w, i, all) => (i === all.length - 1 ? singularize(w) : w))
          .join(' '),
      ),
    ]),
  ]
    .filter((n) => n.length > 0)
    .sort((a, b) => b.length - a.length);
  const idPascal = id.length > 0 ? id[0]!.toUpperCase() + id.slice(1) : id;
  for (const noun of nouns) {
    // The noun must start a camel word and end one (followed by an upper-case letter, a digit or the end).
    const re = new RegExp(`(^|(?<=[a-z0-9]))${noun}(?=[A-Z0-9]|$)`);
    const match = re.exec(idPascal);
    if (!match) continue;
    const rest = idPascal.slice(0, match.index) + idPascal.slice(match.index + noun.length);
    if (rest.length === 0) continue;
    const name = rest[0]!.toLowerCase() + rest.slice(1);
    if (/^[0-9]/.test(name)) continue;
    return name;
  }
  return id;
}

/** Words of a title that name no API: dropped wherever they are (versions) or at the end (the rest). */
const TITLE_VERSION = /^(?:v\d+(?:\.\d+)*|\d+(?:\.\d+)*)$/i;
const TITLE_ARTICLES = new Set(['the', 'a', 'an']);
const TITLE_TRAILING_NOISE = new Set([
  'api',
  'apis',
  'rest',
  'restful',
  'http',
  'https',
  'json',
  'openapi',
  'swagger',
  'spec',
  'specification',
  'reference',
  'documentation',
  'docs',
  'public',
  'client',
  'sdk',
]);
/** At most this many words make the name (`Cloud Storage for Firebase` -> `CloudStorageForFirebase`). */
const TITLE_MAX_WORDS = 4;

/** Words that do not end a name (`Haryana State Board of Technical ...` cut after four words). */
const TITLE_CONNECTORS = new Set(['of', 'for', 'and', 'the', 'to', 'in', 'on', 'by', 'with', 'at', 'a', 'an']);

/**
 * A word as it appears in a name: capitalised, its inner capitals kept (GitHub, OpenAI, IoT); an all-capitals word is
 * read as an acronym and written as one word (`AWS SSO OIDC` -> `AwsSsoOidc`, not `AWSSSOOIDC`).
 */
function nameWord(word: string): string {
  if (word.length > 1 && /^[A-Z0-9]+$/.test(word) && /[A-Z]/.test(word)) return word[0]! + word.slice(1).toLowerCase();
  return word[0]!.toUpperCase() + word.slice(1);
}

/**
 * The PascalCase name an API's title gives its client facade and docs (decision D202): `The Racing API` -> `Racing`,
 * `GitHub v3 REST API` -> `GitHub`, `Discord HTTP API (Preview)` -> `Discord`, `Cloud Storage for Firebase API` ->
 * `CloudStorageForFirebase`, `ApiManagementClient` -> `ApiManagement`. The title up to its first separator (`(`, `[`,
 * `:`, `,`, ` - `, `|`), without leading articles, version words (`v3`, `2.0`) and trailing generic words (API,
 * REST, HTTP, Client, ...), at most four words; `Api` when nothing is left. A name that would start with a digit is
 * prefixed `Api` (a type name cannot start with one). `info.x-client-name` overrides it.
 */
export function apiNameFromTitle(title: string): string {
  const head = title.split(/\s[-–—|]\s|[([{:,;|]/)[0] ?? '';
  let list = head.split(/[^A-Za-z0-9]+/).filter((w) => w.length > 0 && !TITLE_VERSION.test(w));
  while (list.length > 1 && TITLE_ARTICLES.has(list[0]!.toLowerCase())) list = list.slice(1);
  while (list.length > 0 && TITLE_TRAILING_NOISE.has(list[list.length - 1]!.toLowerCase())) list = list.slice(0, -1);
  list = list.slice(0, TITLE_MAX_WORDS);
  while (list.length > 1 && TITLE_CONNECTORS.has(list[list.length - 1]!.toLowerCase())) list = list.slice(0, -1);
  let name = list.map(nameWord).join('');
  // `ApiManagementClient`, `StreamAnalyticsManagementClient`: the facade adds `Client` itself
  if (/[a-z0-9]Client$/.test(name)) name = name.slice(0, -'Client'.length);
  if (name.length === 0 || TITLE_TRAILING_NOISE.has(name.toLowerCase())) return 'Api';
  return /^[0-9]/.test(name) ? `Api${name}` : name;
}

/** The client's name as the spec gives it (`info.x-client-name`), else the one its title gives (apiNameFromTitle). */
export function apiName(title: string, override?: unknown): string {
  if (typeof override === 'string' && override.trim().length > 0) {
    const given = override.trim();
    // as the spec writes it (its casing is the author's choice), first letter capitalised
    return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(given) ? given[0]!.toUpperCase() + given.slice(1) : pascalCase(given) || 'Api';
  }
  return apiNameFromTitle(title);
}
