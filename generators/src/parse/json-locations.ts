/**
 * D191: line and column of JSON-pointer locations in a strict JSON text, as Redocly's `getLineColLocation` finds them
 * (it parses the whole file again with yaml-ast-parser, once per run with any lint problem: seconds of CPU on a large
 * spec, docs/benchmarks.md#lint-locations). One scan of the text, descending only into the values some pointer goes through; everything else is
 * skipped by bracket and string matching. The rules are Redocly's (`getAstNodeByPointer`): a pointer whose key or index
 * is missing stops at the deepest node found; with `reportOnKey` the node's key is reported (an array item, or the
 * root, reports itself); a key present twice is found at its first occurrence; empty segments are ignored.
 */
import { unescapePointerFragment } from '@redocly/openapi-core';

interface Node {
  children: Map<string, Node>;
  /** Offset of the value, once scanned. */
  value?: number;
  /** Offset of the key (the opening quote) when the node is an object member. */
  key?: number;
  /** Whether the value is an object or an array (what `getAstNodeByPointer` descends into). */
  container?: 'object' | 'array';
}

export interface JsonLocation {
  pointer: string;
  reportOnKey?: boolean;
}

/** Space, tab, line feed, carriage return. */
const isWs = (c: number) => c === 32 || c === 10 || c === 13 || c === 9;

/** The `{ line, col }` (1-based) of each location, in the order given. */
export function jsonLineCols(text: string, locations: readonly JsonLocation[]): { line: number; col: number }[] {
  const root: Node = { children: new Map() };
  const paths = locations.map((l) => segments(l.pointer));
  for (const path of paths) {
    let node = root;
    for (const segment of path) {
      let child = node.children.get(segment);
      if (child === undefined) node.children.set(segment, (child = { children: new Map() }));
      node = child;
    }
  }
  new Scanner(text).scan(root);
  const lineStarts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lineStarts.push(i + 1);
  return locations.map((location, index) => {
    let node = root;
    for (const segment of paths[index]!) {
      const child = node.children.get(segment);
      if (node.container === undefined || child?.value === undefined) break;
      node = child;
    }
    const offset = location.reportOnKey === true && node.key !== undefined ? node.key : (node.value ?? 0);
    return lineCol(lineStarts, offset);
  });
}

/** Redocly's parsePointer: `#/a/b~1c` -> ['a', 'b/c'], empty segments dropped. */
function segments(pointer: string): string[] {
  return pointer.slice(2).split('/').map(unescapePointerFragment).filter(Boolean);
}

function lineCol(lineStarts: readonly number[], offset: number): { line: number; col: number } {
  let low = 0;
  let high = lineStarts.length - 1;
  while (low < high) {
    const middle = Math.floor((low + high + 1) / 2);
    if (lineStarts[middle]! <= offset) low = middle;
    else high = middle - 1;
  }
  return { line: low + 1, col: offset - lineStarts[low]! + 1 };
}

class Scanner {
  private i = 0;
  constructor(private readonly text: string) {}

  scan(root: Node): void {
    this.skipWs();
    this.value(root);
  }

  private skipWs(): void {
    while (isWs(this.text.charCodeAt(this.i))) this.i++;
  }

  /** Scans the value at `i`; records it in `node` (and descends) when some pointer goes through it. */
  private value(node: Node | undefined): void {
    const c = this.text[this.i];
    if (node !== undefined) node.value = this.i;
    if (c === '{') {
      if (node !== undefined) node.container = 'object';
      this.i++;
      this.skipWs();
      if (this.text[this.i] === '}') {
        this.i++;
        return;
      }
      for (;;) {
        const keyStart = this.i;
        const key = this.string();
        this.skipWs();
        this.i++; // ':'
        this.skipWs();
        let child = node?.children.get(key);
        if (child !== undefined && child.value !== undefined) child = undefined; // the first occurrence wins
        if (child !== undefined) child.key = keyStart;
        this.value(child);
        this.skipWs();
        if (this.text[this.i++] === '}') return;
        this.skipWs();
      }
    } else if (c === '[') {
      if (node !== undefined) node.container = 'array';
      this.i++;
      this.skipWs();
      if (this.text[this.i] === ']') {
        this.i++;
        return;
      }
      for (let index = 0; ; index++) {
        this.value(node?.children.get(String(index)));
        this.skipWs();
        if (this.text[this.i++] === ']') return;
        this.skipWs();
      }
    } else if (c === '"') {
      this.skipString();
    } else {
      // number, true, false, null: up to the next delimiter
      for (let d = this.text.charCodeAt(this.i); !Number.isNaN(d) && d !== 44 && d !== 93 && d !== 125 && !isWs(d); )
        d = this.text.charCodeAt(++this.i);
    }
  }

  /** Moves past the string literal at `i`; whether it holds an escape. */
  private skipString(): boolean {
    const start = this.i;
    let escaped = false;
    for (;;) {
      const quote = this.text.indexOf('"', this.i + 1);
      if (quote === -1) throw new Error(`unterminated JSON string at offset ${start}`);
      let backslashes = 0;
      while (this.text.charCodeAt(quote - 1 - backslashes) === 92) backslashes++;
      if (backslashes > 0) escaped = true;
      this.i = quote;
      if (backslashes % 2 === 0) break; // not escaped: the closing quote
    }
    this.i++;
    return escaped;
  }

  private string(): string {
    const start = this.i;
    const escaped = this.skipString();
    return escaped ? (JSON.parse(this.text.slice(start, this.i)) as string) : this.text.slice(start + 1, this.i - 1);
  }
}
