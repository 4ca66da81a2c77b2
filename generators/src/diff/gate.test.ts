import { describe, expect, it } from 'vitest';
import { evaluateGate, formatGate, type AllowEntry } from './gate.js';
import type { Change } from './types.js';

const removed: Change = {
  classification: 'breaking',
  kind: 'property-removed',
  document: 'openapi',
  pointer: '/components/schemas/Order/properties/note',
  location: '/paths/~1orders/get/responses/200/content/application~1json/schema/properties/note',
  message: 'GET /orders: [Removed] property `note`',
};
const added: Change = { ...removed, classification: 'non-breaking', kind: 'property-added', pointer: '/components/schemas/Order/properties/memo' };
const allowNote: AllowEntry = { kind: 'property-removed', pointer: removed.pointer, reason: 'never sent' };
const allowByLocation: AllowEntry = { ...allowNote, pointer: removed.location };
const staleEntry: AllowEntry = { kind: 'type-changed', pointer: '/components/schemas/Order/properties/amount/type', reason: 'old' };

describe('evaluateGate', () => {
  it.each([
    { case: 'no change', current: '1.0.0', changes: [], allow: [], passed: true, blocking: 0, stale: 0 },
    { case: 'only non-breaking changes', current: '1.1.0', changes: [added], allow: [], passed: true, blocking: 0, stale: 0 },
    { case: 'a breaking change in a minor version', current: '1.1.0', changes: [removed, added], allow: [], passed: false, blocking: 1, stale: 0 },
    { case: 'a breaking change in the same version', current: '1.0.0', changes: [removed], allow: [], passed: false, blocking: 1, stale: 0 },
    { case: 'a breaking change in a new major version', current: '2.0.0', changes: [removed], allow: [], passed: true, blocking: 0, stale: 0 },
    { case: 'a breaking change in a 2.0 pre-release', current: '2.0.0-rc.1', changes: [removed], allow: [], passed: true, blocking: 0, stale: 0 },
    { case: 'an allowed breaking change (by pointer)', current: '1.0.1', changes: [removed], allow: [allowNote], passed: true, blocking: 0, stale: 0 },
    { case: 'an allowed breaking change (by location)', current: '1.0.1', changes: [removed], allow: [allowByLocation], passed: true, blocking: 0, stale: 0 },
    { case: 'an allow entry of another kind', current: '1.0.1', changes: [removed], allow: [{ ...allowNote, kind: 'type-changed' }], passed: false, blocking: 1, stale: 1 },
    { case: 'a stale allow entry', current: '1.0.1', changes: [added], allow: [staleEntry], passed: true, blocking: 0, stale: 1 },
  ])('$case: passed=$passed', ({ current, changes, allow, passed, blocking, stale }) => {
    const result = evaluateGate({ releasedVersion: '1.0.0', currentVersion: current, changes, allow: { entries: allow, invalid: [] } });
    expect(result.passed).toBe(passed);
    expect(result.blocking).toHaveLength(blocking);
    expect(result.stale).toHaveLength(stale);
  });

  it('fails on an unusable allow entry even without breaking changes', () => {
    const result = evaluateGate({ releasedVersion: '1.0.0', currentVersion: '1.0.0', changes: [], allow: { entries: [], invalid: ['allowed[0] has no reason'] } });
    expect(result.passed).toBe(false);
  });

  it('tells the author the three ways out, with a ready allow entry', () => {
    const input = { releasedVersion: '1.4.2', currentVersion: '1.5.0', changes: [removed], allow: { entries: [], invalid: [] } };
    const text = formatGate(evaluateGate(input), input, { specFile: 'openapi/openapi.yaml', allowFile: 'openapi/released/allowed-breaking-changes.yaml', releasedFile: 'openapi/released/1.4.2.json' });
    expect(text).toContain('revert the change in openapi/openapi.yaml');
    expect(text).toContain('set info.version to 2.0.0 in openapi/openapi.yaml');
    expect(text).toContain(`       - kind: property-removed\n         pointer: ${removed.pointer}\n         reason: <why no integrated merchant breaks>`);
  });
});
