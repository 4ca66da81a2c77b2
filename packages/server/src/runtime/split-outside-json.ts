/** Splitting a delimited parameter value whose items may be JSON texts (D456 query objects and arrays of objects serialised). */

/**
 * `value` split at `delimiter` where it stands outside JSON objects, arrays and strings: the items of a non-exploded
 * array of objects are JSON texts, which hold the delimiter themselves (D456 query objects and arrays of objects serialised).
 */
export function splitOutsideJson(value: string, delimiter: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let inString = false;
  let start = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value[i]!;
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth++;
    else if ((c === '}' || c === ']') && depth > 0) depth--;
    else if (depth === 0 && value.startsWith(delimiter, i)) {
      out.push(value.slice(start, i));
      start = i + delimiter.length;
      i = start - 1;
    }
  }
  out.push(value.slice(start));
  return out;
}
