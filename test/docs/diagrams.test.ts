/**
 * The diagrams' one source is the spec (D390 diagrams drawn at build time): the state machines it declares (`x-state-machine`) and its retry
 * schedule (`x-webhook-retry-schedule`) must be the ones the gateway enforces, move for move, or this test fails.
 * Then the drawing: every state and move of each machine is in its SVG and its text list, and any spec that declares
 * none gets no diagrams page.
 */
import { describe, expect, it } from 'vitest';
import {
  diagramsView,
  retrySchedule,
  stateMachines,
  stateMachineSvg,
  timelineSvg,
  type StateMachineSpec,
} from '../../generators/src/emit/docs-diagrams.js';
import { loadOpenApi } from '../../generators/src/parse/openapi.js';
import { DEFAULT_WEBHOOK_RETRY_SCHEDULE } from '../../packages/reference/src/core/config.js';
import {
  kycMachine,
  orderMachine,
  paymentMachine,
  refundMachine,
  settlementStatusFor,
  type StateMachine,
} from '../../packages/reference/src/core/state-machines.js';
import { ROOT } from '../generators/fixtures.js';

const loaded = await loadOpenApi({ input: 'openapi/openapi.yaml', lint: 'skip', cwd: ROOT });
const machines = stateMachines(loaded.document);
const byTitle = (title: string): StateMachineSpec => {
  const found = machines.find((m) => m.title === title);
  if (found === undefined) throw new Error(`the spec declares no x-state-machine titled ${title}`);
  return found;
};

/** Every (from, to) pair the gateway's machine allows. */
function allowedMoves<S extends string>(machine: StateMachine<S>): string[] {
  return machine.states
    .flatMap((from) => machine.states.filter((to) => machine.canTransition(from, to)).map((to) => `${from}->${to}`))
    .sort();
}
const declaredMoves = (m: StateMachineSpec) => m.transitions.map((t) => `${t.from}->${t.to}`).sort();

describe("the spec's state machines are the gateway's", () => {
  it.each([
    ['Order', orderMachine],
    ['Payment', paymentMachine],
    ['Refund', refundMachine],
    ['Merchant KYC', kycMachine],
  ] as const)('%s: the same states, initial state and moves', (title, machine) => {
    const declared = byTitle(title);
    expect(declared.initial).toBe(machine.initial);
    expect([...declared.states].sort()).toEqual([...machine.states].sort());
    expect(declaredMoves(declared)).toEqual(allowedMoves(machine as StateMachine<string>));
  });

  it("Settlement of a payment: the moves the payment's own moves (and a settlement run) make", () => {
    const declared = byTitle('Settlement of a payment');
    const moves = new Set<string>();
    for (const from of paymentMachine.states) {
      for (const to of paymentMachine.states.filter((s) => paymentMachine.canTransition(from, s))) {
        moves.add(`${settlementStatusFor(from, false)}->${settlementStatusFor(to, false)}`);
      }
    }
    // a settlement run settles what is ready: the one move no payment move makes
    moves.add(`${settlementStatusFor('CAPTURED', false)}->${settlementStatusFor('CAPTURED', true)}`);
    expect(declaredMoves(declared)).toEqual([...moves].sort());
    expect(declared.initial).toBe(settlementStatusFor(paymentMachine.initial, false));
  });

  it("the delivery timeline's schedule is the gateway's default retry schedule", () => {
    expect(retrySchedule(loaded.document)).toEqual([...DEFAULT_WEBHOOK_RETRY_SCHEDULE]);
  });
});

describe('the drawings', () => {
  it.each(machines.map((m) => [m.title, m] as const))('%s: every state and move is drawn and listed', (_title, machine) => {
    const svg = stateMachineSvg(machine, 'm');
    expect(svg).toMatch(/^<svg [^>]*role="img"[^>]*aria-labelledby="m-title m-desc"/);
    for (const state of machine.states) expect(svg).toContain(`>${state}</text>`);
    // one arrow per move plus the start marker's
    expect(svg.match(/marker-end=/g)).toHaveLength(machine.transitions.length + 1);
    for (const t of machine.transitions) expect(svg).toContain(`${t.from} to ${t.to}`);
  });

  it('the timeline places every attempt, in order, and names when each happens', () => {
    const svg = timelineSvg([5, 300, 1800], 't');
    const xs = [...svg.matchAll(/<circle cx="([\d.]+)"/g)].map((m) => Number(m[1]));
    expect(xs).toHaveLength(4);
    expect(xs).toEqual([...xs].sort((a, b) => a - b));
    expect(svg).toContain('+35 min 5 s');
    expect(svg).toContain('given up');
  });

  it('a spec that declares neither gets no diagrams page; a malformed machine is refused with its location', () => {
    expect(diagramsView({ components: { schemas: { S: { type: 'string', enum: ['a'] } } } })).toBeUndefined();
    expect(() =>
      stateMachines({ components: { schemas: { S: { enum: ['a'], 'x-state-machine': { initial: 'a', transitions: { a: ['b'] } } } } } }),
    ).toThrow(/#\/components\/schemas\/S\/x-state-machine: b not in the schema's enum/);
  });
});
