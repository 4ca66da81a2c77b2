/**
 * Next-page links (D227 page strategies as data in the client): the query a next URL carries, and the rel="next" target of an RFC 8288 `Link` header. The
 * header is parsed with `http-link-header` (RFC 8288: quoted strings with commas, several relations in one `rel`,
 * extended attributes), not a regular expression.
 */
import LinkHeader from 'http-link-header';

/** A query as the generated client sends it: a value, or a repeated parameter's values. */
export type PageQuery = Record<string, unknown>;

const RELATIVE_BASE = 'http://relative.invalid';

/** A value that is a URL (absolute, or a path or query relative to the API), not a bare token. */
export function isUrlLike(value: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(value) || value.startsWith('/') || value.startsWith('?');
}

/**
 * The query parameters of a next link (absolute or relative), a repeated one as an array of its values, or undefined
 * when it is not a URL at all.
 */
export function linkQuery(link: string): PageQuery | undefined {
  let url: URL;
  try {
    url = new URL(link, RELATIVE_BASE);
  } catch {
    return undefined;
  }
  const out: PageQuery = {};
  for (const key of new Set(url.searchParams.keys())) {
    const values = url.searchParams.getAll(key);
    out[key] = values.length === 1 ? values[0] : values;
  }
  return out;
}

/**
 * The target of rel="next" in a `Link` header (GitHub: `<https://api.github.com/...&page=2>; rel="next", <...>;
 * rel="last"`), undefined when there is none. A header that is not RFC 8288 throws a `SyntaxError` the caller reports.
 */
export function nextFromLinkHeader(header: string): string | undefined {
  const refs = LinkHeader.parse(header).refs;
  return refs.find((ref) => ref.rel.toLowerCase().split(/\s+/).includes('next'))?.uri;
}
