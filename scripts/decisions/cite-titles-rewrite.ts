/**
 * The rewrite of scripts/decisions/cite-titles.ts (D451 code cites a decision by number and title), pure: a source text in, the text with titled citations out.
 */
import ts from 'typescript';

/** A parenthesis holding only decision numbers: `(D141 one dispatch middleware with find-my-way)`, `(D96 early answers close the connection, bodies counted; D141 one dispatch middleware with find-my-way)`, `(D36 credential rotation with an overlap window; D37 callbacks signed with the session's key version)`. */
const BARE_GROUP = /\((D\d+(?:(?:, ?| and )D\d+)*)\)/g;

/**
 * `[start, end)` of every comment of a TypeScript or JavaScript source, in order: the trivia before each token of the
 * parsed file (the parser, not a regular expression, tells a comment from a string, template or regular expression),
 * scanned by TypeScript's scanner.
 */
export function commentRanges(text: string, fileName: string): [number, number][] {
  const kind = /\.[cm]?jsx?$/.test(fileName) ? ts.ScriptKind.JSX : ts.ScriptKind.TSX;
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, kind);
  const ranges: [number, number][] = [];
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, false);
  const trivia = (from: number, to: number) => {
    scanner.setText(text, from, to - from);
    for (let token = scanner.scan(); token !== ts.SyntaxKind.EndOfFileToken; token = scanner.scan()) {
      if (token === ts.SyntaxKind.SingleLineCommentTrivia || token === ts.SyntaxKind.MultiLineCommentTrivia)
        ranges.push([scanner.getTokenStart(), scanner.getTokenEnd()]);
    }
  };
  const visit = (node: ts.Node) => {
    if (node.kind >= ts.SyntaxKind.FirstJSDocNode && node.kind <= ts.SyntaxKind.LastJSDocNode) return;
    const children = node.getChildren(source);
    if (children.length === 0) trivia(node.pos, node.getStart(source));
    else for (const child of children) visit(child);
  };
  visit(source);
  return ranges;
}

/** The title as it reads inside a sentence: `A new order starts` -> `a new order starts`; `PGlite read cache` kept. */
export function inSentence(title: string): string {
  const first = /^[^\s,:;]+/.exec(title)?.[0] ?? '';
  const keep = /^[A-Z][a-z'-]*$/.test(first) === false || PROPER_NOUNS.has(first.replace(/'s$/, ''));
  return keep ? title : title[0]!.toLowerCase() + title.slice(1);
}

/** First words of titles that are names (kept capitalised); any other capitalised first word is lower-cased. */
const PROPER_NOUNS = new Set(['Ajv', 'Biome', 'Redis', 'Redoc', 'Zod', 'Stripe', 'Express', 'Chromium', 'Prism']);

/** Titles the bare citations of one comment; `cited` lists the ids it titled. */
function titleComment(comment: string, titles: ReadonlyMap<string, string>, cited: string[]): string {
  const carries = (id: string) => comment.toLowerCase().includes(titles.get(id)!.toLowerCase());
  return comment.replace(BARE_GROUP, (group, list: string) => {
    const ids = list.split(/, ?| and /);
    if (!ids.some((id) => titles.has(id) && !carries(id))) return group;
    cited.push(...ids.filter((id) => titles.has(id) && !carries(id)));
    return `(${ids.map((id) => (titles.has(id) && !carries(id) ? `${id} ${inSentence(titles.get(id)!)}` : id)).join('; ')})`;
  });
}

/** The source with every bare citation in its comments titled, and the ids titled (in order). */
export function citeTitles(text: string, fileName: string, titles: ReadonlyMap<string, string>): { text: string; cited: string[] } {
  const cited: string[] = [];
  let out = '';
  let at = 0;
  for (const [start, end] of commentRanges(text, fileName)) {
    out += text.slice(at, start) + titleComment(text.slice(start, end), titles, cited);
    at = end;
  }
  return { text: out + text.slice(at), cited };
}
