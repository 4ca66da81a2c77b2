/**
 * What the corpus runner keeps of a step's output (`paygate generate`, `paygate docs`): its head and its tail, with
 * what was cut said where it was cut. A failing step prints its progress first and its error last (graph-beta's
 * `paygate docs` wrote 20,000 characters of progress before the error, which a head alone lost).
 */

/** Characters kept from the start of a step's output. */
export const HEAD_CHARS = 4_000;
/** Characters kept from its end: the error a failing step ends with. */
export const TAIL_CHARS = 16_000;

/** `text` whole when it is short enough, else its first `head` and last `tail` characters with a marker between. */
export function headAndTail(text: string, head = HEAD_CHARS, tail = TAIL_CHARS): string {
  if (text.length <= head + tail) return text;
  const cut = text.length - head - tail;
  return `${text.slice(0, head)}\n[… ${cut} characters left out …]\n${text.slice(text.length - tail)}`;
}

/** Progress noise: the files a step wrote. */
const NOISE = /^\s*(wrote |\d+ file\(s\) written)/;

/**
 * The lines of a step's output that say what happened (`wrote …` lines left out): the first `head` and the last
 * `tail` of them, with how many were left out between, so an error at either end is kept.
 */
export function outline(text: string, head = 8, tail = 12): string {
  const lines = text.split('\n').filter((l) => l.trim() !== '' && !NOISE.test(l));
  if (lines.length <= head + tail) return lines.join('\n');
  return [...lines.slice(0, head), `[… ${lines.length - head - tail} line(s) left out …]`, ...lines.slice(lines.length - tail)].join('\n');
}
