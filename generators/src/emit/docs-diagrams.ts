/**
 * Diagrams drawn from the spec itself (D390 "Diagrams from the one source, drawn at build time"): every
 * `x-state-machine` (on a status enum: its title, initial state, allowed moves and optional labels of moves) becomes a
 * state diagram, and `x-webhook-retry-schedule` (seconds between delivery attempts) the webhook delivery timeline.
 * Any spec that declares them gets the diagrams page; Paygate's spec declares its order, payment, refund, settlement
 * and KYC machines, which test/docs/diagrams.test.ts checks against the gateway's own (core/state-machines.ts).
 *
 * The SVG is laid out here, by hand, offline and deterministically: states in columns by their distance from the
 * initial state, moves as arrows. Mermaid's renderer needs a headless browser downloaded by an install script and
 * Graphviz a system binary; neither may be assumed where `paygate docs` runs, and the machines are small. The SVG is
 * inline in the page (the docs' CSP allows images from data: only), with a title, a description and a text list of
 * the moves for readers who do not see it.
 */
import { isObj, escapePointerToken } from '../util/json.js';

type Obj = Record<string, unknown>;

export interface StateMachineSpec {
  title: string;
  initial: string;
  states: string[];
  transitions: { from: string; to: string; label: string }[];
  /** Where the spec declares it (a JSON pointer), for messages. */
  pointer: string;
}

const escapeXml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!);

/** Every `x-state-machine` of the document, in document order (a malformed one is refused with its location). */
export function stateMachines(document: unknown): StateMachineSpec[] {
  const found: StateMachineSpec[] = [];
  const seen = new Set<unknown>();
  const walk = (node: unknown, pointer: string, key: string) => {
    if (!isObj(node) && !Array.isArray(node)) return;
    if (seen.has(node)) return;
    seen.add(node);
    if (isObj(node) && node['x-state-machine'] !== undefined) found.push(readMachine(node, pointer, key));
    for (const [k, v] of Object.entries(node)) if (k !== 'x-state-machine') walk(v, `${pointer}/${escapePointerToken(k)}`, k);
  };
  walk(document, '#', '');
  return found;
}

function readMachine(schema: Obj, pointer: string, key: string): StateMachineSpec {
  const raw = schema['x-state-machine'];
  const where = `${pointer}/x-state-machine`;
  if (!isObj(raw) || !isObj(raw.transitions) || typeof raw.initial !== 'string') {
    throw new Error(`${where}: expected {title, initial, transitions: {state: [next states]}, labels?}`);
  }
  const enumStates = Array.isArray(schema.enum) ? schema.enum.map(String) : [];
  const transitions: StateMachineSpec['transitions'] = [];
  const labels = isObj(raw.labels) ? raw.labels : {};
  const named = new Set<string>([raw.initial]);
  for (const [from, targets] of Object.entries(raw.transitions)) {
    named.add(from);
    if (!Array.isArray(targets)) throw new Error(`${where}/transitions/${from}: expected a list of states`);
    for (const to of targets.map(String)) {
      named.add(to);
      const label = labels[`${from}->${to}`];
      transitions.push({ from, to, label: typeof label === 'string' ? label : '' });
    }
  }
  const unknown = [...named].filter((s) => enumStates.length > 0 && !enumStates.includes(s));
  if (unknown.length > 0) throw new Error(`${where}: ${unknown.join(', ')} not in the schema's enum [${enumStates.join(', ')}]`);
  return {
    title: typeof raw.title === 'string' ? raw.title : key,
    initial: raw.initial,
    // the enum's order (the spec's), then any state only the machine names
    states: [...enumStates, ...[...named].filter((s) => !enumStates.includes(s))],
    transitions,
    pointer: where,
  };
}

/** The retry delays in seconds (`x-webhook-retry-schedule`), or undefined. */
export function retrySchedule(document: unknown): number[] | undefined {
  const raw = isObj(document) ? document['x-webhook-retry-schedule'] : undefined;
  if (raw === undefined) return undefined;
  if (!Array.isArray(raw) || !raw.every((n) => typeof n === 'number' && Number.isFinite(n) && n >= 0)) {
    throw new Error('#/x-webhook-retry-schedule: expected a list of seconds, e.g. [5, 300, 1800]');
  }
  return raw as number[];
}

// ---------------------------------------------------------------------------------------------------------------
// Layout

const FONT = 13;
/** Width of a label in the sans-serif font at 13 px, estimated (no font metrics at build time): wide enough for capitals. */
const textWidth = (text: string) => Math.ceil(text.length * FONT * 0.62);
const BOX_H = 34;
const COL_GAP = 120;
const ROW_GAP = 28;
const PAD = 16;

interface Placed {
  state: string;
  x: number;
  y: number;
  w: number;
  terminal: boolean;
}

/** Columns by distance (BFS) from the initial state; unreachable states in a last column. */
function columns(machine: StateMachineSpec): string[][] {
  const depth = new Map<string, number>([[machine.initial, 0]]);
  const queue = [machine.initial];
  while (queue.length > 0) {
    const state = queue.shift()!;
    for (const t of machine.transitions.filter((x) => x.from === state)) {
      if (!depth.has(t.to)) {
        depth.set(t.to, depth.get(state)! + 1);
        queue.push(t.to);
      }
    }
  }
  const max = Math.max(...depth.values());
  const cols: string[][] = [];
  for (const state of machine.states) {
    const d = depth.get(state) ?? max + 1;
    (cols[d] ??= []).push(state);
  }
  return cols.filter((c) => c !== undefined);
}

/** A state diagram as inline SVG (role img, with title and description). `id` makes its element ids unique on the page. */
export function stateMachineSvg(machine: StateMachineSpec, id: string): string {
  const cols = columns(machine);
  const colWidths = cols.map((c) => Math.max(...c.map((s) => textWidth(s) + 28)));
  const tallest = Math.max(...cols.map((c) => c.length));
  const height = PAD * 2 + tallest * BOX_H + (tallest - 1) * ROW_GAP + 8;
  const placed = new Map<string, Placed>();
  const columnOf = new Map(cols.flatMap((col, i) => col.map((s) => [s, i] as const)));
  // the gap after a column fits the longest label of the moves leaving it (forward moves, and moves within it, drawn on its right)
  const gapAfter = cols.map((_, i) =>
    Math.max(COL_GAP, ...machine.transitions.filter((t) => columnOf.get(t.from) === i).map((t) => textWidth(t.label) * 0.85 + 56)),
  );
  let x = PAD + 22; // room for the start marker
  cols.forEach((col, i) => {
    const w = colWidths[i]!;
    const colHeight = col.length * BOX_H + (col.length - 1) * ROW_GAP;
    let y = (height - colHeight) / 2;
    for (const state of col) {
      const terminal = !machine.transitions.some((t) => t.from === state);
      placed.set(state, { state, x, y, w, terminal });
      y += BOX_H + ROW_GAP;
    }
    x += w + gapAfter[i]!;
  });
  const width =
    x -
    gapAfter[cols.length - 1]! +
    PAD +
    (machine.transitions.some((t) => columnOf.get(t.from) === cols.length - 1) ? gapAfter[cols.length - 1]! : 0);
  const parts: string[] = [];
  const initial = placed.get(machine.initial)!;
  const cy = (p: Placed) => p.y + BOX_H / 2;
  // start marker: a filled dot with an arrow into the initial state
  parts.push(`<circle cx="${PAD + 5}" cy="${cy(initial)}" r="5" fill="#1f2328"/>`);
  parts.push(
    `<line x1="${PAD + 10}" y1="${cy(initial)}" x2="${initial.x - 2}" y2="${cy(initial)}" stroke="#1f2328" stroke-width="1.5" marker-end="url(#${id}-arrow)"/>`,
  );
  for (const t of machine.transitions) {
    const a = placed.get(t.from)!;
    const b = placed.get(t.to)!;
    let path: string;
    let lx: number;
    let ly: number;
    if (b.x > a.x) {
      // forward: from the right edge of a to the left edge of b, a gentle curve
      const x1 = a.x + a.w;
      const y1 = cy(a);
      const x2 = b.x - 2;
      const y2 = cy(b);
      const mx = (x1 + x2) / 2;
      path = `M${x1},${y1} C${mx},${y1} ${mx},${y2} ${x2},${y2}`;
      lx = mx;
      ly = (y1 + y2) / 2 - 5;
    } else if (b.x === a.x) {
      // within a column: an arc on the column's right
      const x1 = a.x + a.w;
      const x2 = b.x + b.w + 2;
      const out = x1 + 36;
      path = `M${x1},${cy(a)} C${out},${cy(a)} ${out},${cy(b)} ${x2},${cy(b)}`;
      lx = out + 4 + (textWidth(t.label) * 0.85) / 2;
      ly = (cy(a) + cy(b)) / 2 + 4;
    } else {
      // backward: an arc below the boxes
      const x1 = a.x + a.w / 2;
      const x2 = b.x + b.w / 2;
      const y1 = a.y + BOX_H;
      const y2 = b.y + BOX_H + 2;
      const low = Math.max(y1, y2) + 26;
      path = `M${x1},${y1} C${x1},${low} ${x2},${low} ${x2},${y2}`;
      lx = (x1 + x2) / 2;
      ly = low + 4;
    }
    parts.push(`<path d="${path}" fill="none" stroke="#57606a" stroke-width="1.5" marker-end="url(#${id}-arrow)"/>`);
    if (t.label !== '') {
      const w = textWidth(t.label) * 0.85 + 8;
      parts.push(
        `<rect x="${(lx - w / 2).toFixed(1)}" y="${(ly - 11).toFixed(1)}" width="${w.toFixed(1)}" height="15" rx="3" fill="#fff" opacity="0.9"/>`,
      );
      parts.push(
        `<text x="${lx.toFixed(1)}" y="${ly.toFixed(1)}" text-anchor="middle" font-size="11" fill="#57606a">${escapeXml(t.label)}</text>`,
      );
    }
  }
  for (const p of placed.values()) {
    const stroke = p.terminal ? 'stroke="#1f2328" stroke-width="2.5"' : 'stroke="#1d4ed8" stroke-width="1.5"';
    parts.push(
      `<rect x="${p.x}" y="${p.y}" width="${p.w}" height="${BOX_H}" rx="8" fill="${p.terminal ? '#f6f8fa' : '#eef4ff'}" ${stroke}/>`,
    );
    parts.push(
      `<text x="${p.x + p.w / 2}" y="${p.y + BOX_H / 2 + 4.5}" text-anchor="middle" font-size="${FONT}" font-family="ui-monospace, SFMono-Regular, Menlo, monospace" fill="#1f2328">${escapeXml(p.state)}</text>`,
    );
  }
  const extraBelow = machine.transitions.some((t) => placed.get(t.to)!.x < placed.get(t.from)!.x) ? 40 : 0;
  const description = `Starts in ${machine.initial}. ${machine.transitions.map((t) => `${t.from} to ${t.to}${t.label ? ` (${t.label})` : ''}`).join('; ')}.`;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-labelledby="${id}-title ${id}-desc" viewBox="0 0 ${width} ${height + extraBelow}" width="${width}" height="${height + extraBelow}" font-family="system-ui, sans-serif">`,
    `<title id="${id}-title">${escapeXml(machine.title)} states</title>`,
    `<desc id="${id}-desc">${escapeXml(description)}</desc>`,
    `<defs><marker id="${id}-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#57606a"/></marker></defs>`,
    ...parts,
    '</svg>',
  ].join('\n');
}

/** `5 s`, `5 min`, `2 h`, `1 h 30 min`. */
export function duration(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return seconds % 60 === 0 ? `${seconds / 60} min` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
  const h = Math.floor(seconds / 3600);
  const m = Math.round((seconds % 3600) / 60);
  return m === 0 ? `${h} h` : `${h} h ${m} min`;
}

/** The delivery attempts: attempt n at the sum of the first n-1 delays (before jitter). */
export function deliveryAttempts(delays: readonly number[]): { attempt: number; at: number; after: number }[] {
  let at = 0;
  return [{ attempt: 1, at: 0, after: 0 }, ...delays.map((d, i) => ({ attempt: i + 2, at: (at += d), after: d }))];
}

/**
 * The delivery timeline: attempts on a time axis. The axis is logarithmic (5 s and 27 h on one line: on a linear one
 * the first four attempts would share a pixel), labelled with each attempt's time since the event.
 */
export function timelineSvg(delays: readonly number[], id: string): string {
  const attempts = deliveryAttempts(delays);
  const last = attempts[attempts.length - 1]!.at || 1;
  const width = 760;
  const left = 40;
  const right = width - 110;
  const axisY = 70;
  const unit = Math.max(1, delays[0] ?? 1);
  const xOf = (t: number) => left + ((right - left) * Math.log1p(t / unit)) / Math.log1p(last / unit);
  const parts: string[] = [];
  parts.push(`<line x1="${left}" y1="${axisY}" x2="${right + 30}" y2="${axisY}" stroke="#57606a" stroke-width="1.5"/>`);
  attempts.forEach((a, i) => {
    const x = xOf(a.at);
    const up = i % 2 === 0;
    parts.push(
      `<circle cx="${x.toFixed(1)}" cy="${axisY}" r="6" fill="${i === 0 ? '#1d4ed8' : '#fff'}" stroke="#1d4ed8" stroke-width="2"/>`,
    );
    parts.push(
      `<text x="${x.toFixed(1)}" y="${up ? axisY - 16 : axisY + 26}" text-anchor="middle" font-size="12" fill="#1f2328">#${a.attempt}</text>`,
    );
    parts.push(
      `<text x="${x.toFixed(1)}" y="${up ? axisY - 32 : axisY + 42}" text-anchor="middle" font-size="11" fill="#57606a">${i === 0 ? 'event' : `+${escapeXml(duration(a.at))}`}</text>`,
    );
  });
  parts.push(`<text x="${right + 36}" y="${axisY + 4}" font-size="12" fill="#b42318">given up</text>`);
  const description = `Attempt 1 when the event happens, then retries after ${delays.map(duration).join(', ')}: attempts at ${attempts
    .slice(1)
    .map((a) => duration(a.at))
    .join(', ')} after the event; then the event is given up.`;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-labelledby="${id}-title ${id}-desc" viewBox="0 0 ${width} 130" width="${width}" height="130" font-family="system-ui, sans-serif">`,
    `<title id="${id}-title">Webhook delivery attempts</title>`,
    `<desc id="${id}-desc">${escapeXml(description)}</desc>`,
    ...parts,
    '</svg>',
  ].join('\n');
}

export interface DiagramsView {
  machines: { id: string; title: string; svg: string; moves: string[]; pointer: string }[];
  timeline: { svg: string; attempts: { attempt: number; at: string; after: string }[] } | null;
}

/** The diagrams page's view, or undefined when the spec declares no machine and no schedule. */
export function diagramsView(document: unknown): DiagramsView | undefined {
  const machines = stateMachines(document);
  const delays = retrySchedule(document);
  if (machines.length === 0 && delays === undefined) return undefined;
  return {
    machines: machines.map((m, i) => {
      const id = `machine-${i}-${m.title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
      return {
        id,
        title: m.title,
        svg: stateMachineSvg(m, id),
        moves: m.transitions.map((t) => `${t.from} → ${t.to}${t.label ? ` (${t.label})` : ''}`),
        pointer: m.pointer,
      };
    }),
    timeline:
      delays === undefined
        ? null
        : {
            svg: timelineSvg(delays, 'delivery-timeline'),
            attempts: deliveryAttempts(delays).map((a) => ({
              attempt: a.attempt,
              at: a.at === 0 ? 'when the event happens' : duration(a.at),
              after: a.after === 0 ? '' : duration(a.after),
            })),
          },
  };
}
