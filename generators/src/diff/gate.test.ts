import { describe, expect, it } from 'vitest';
import { evaluateGate, formatGate, type AllowEntry } from './gate.js';
import type { Change } from './types.js';

const removed: Change = {
  classification: 'breaking',
  kind: 'property-removed',
  document: 'openapi',
  pointer: '/components/schemas/Order/properties/note',
  message: 'schema Order: property removed at `note`',
  uses: [{ where: 'GET /orders', in: 'response 200 (application/json)', direction: 'response' }],
  useCount: 1,
};
const widened: Change = {
  ...removed,
  classification: 'warning',
  kind: 'enum-value-added',
  pointer: '/components/schemas/Order/properties/status/enum/2',
};
const unclassified: Change = {
  ...removed,
  classification: 'unclassified',
  kind: 'not-added',
  pointer: '/components/schemas/Order/properties/note/not',
};
/** The place of use: allow entries name the definition, not where it is used (D104 one diff entry per change, at its definition). */
const USE_POINTER = '/paths/~1orders/get/responses/200/content/application~1json/schema/properties/note';
const added: Change = {
  ...removed,
  classification: 'non-breaking',
  kind: 'property-added',
  pointer: '/components/schemas/Order/properties/memo',
};
const allowNote: AllowEntry = { kind: 'property-removed', pointer: removed.pointer, reason: 'never sent' };
const allowByUse: AllowEntry = { ...allowNote, pointer: USE_POINTER };
const staleEntry: AllowEntry = { kind: 'type-changed', pointer: '/components/schemas/Order/properties/amount/type', reason: 'old' };

describe('evaluateGate', () => {
  it.each([
    { case: 'no change', current: '1.0.0', changes: [], allow: [], passed: true, blocking: 0, stale: 0 },
    { case: 'only non-breaking changes', current: '1.1.0', changes: [added], allow: [], passed: true, blocking: 0, stale: 0 },
    {
      case: 'a breaking change in a minor version',
      current: '1.1.0',
      changes: [removed, added],
      allow: [],
      passed: false,
      blocking: 1,
      stale: 0,
    },
    {
      case: 'a breaking change in the same version',
      current: '1.0.0',
      changes: [removed],
      allow: [],
      passed: false,
      blocking: 1,
      stale: 0,
    },
    {
      case: 'a breaking change in a new major version',
      current: '2.0.0',
      changes: [removed],
      allow: [],
      passed: true,
      blocking: 0,
      stale: 0,
    },
    {
      case: 'a breaking change in a 2.0 pre-release',
      current: '2.0.0-rc.1',
      changes: [removed],
      allow: [],
      passed: true,
      blocking: 0,
      stale: 0,
    },
    {
      case: 'an allowed breaking change (by pointer)',
      current: '1.0.1',
      changes: [removed],
      allow: [allowNote],
      passed: true,
      blocking: 0,
      stale: 0,
    },
    // before issue 21 an entry could name a place of use; one change now has one pointer, its definition's
    {
      case: 'an entry naming a place of use, not the definition',
      current: '1.0.1',
      changes: [removed],
      allow: [allowByUse],
      passed: false,
      blocking: 1,
      stale: 1,
    },
    {
      case: 'an allow entry of another kind',
      current: '1.0.1',
      changes: [removed],
      allow: [{ ...allowNote, kind: 'type-changed' }],
      passed: false,
      blocking: 1,
      stale: 1,
    },
    { case: 'a stale allow entry', current: '1.0.1', changes: [added], allow: [staleEntry], passed: true, blocking: 0, stale: 1 },
    {
      case: 'a widened response enum at --fail-on breaking',
      current: '1.1.0',
      changes: [widened],
      allow: [],
      passed: true,
      blocking: 0,
      stale: 0,
    },
    {
      case: 'a widened response enum at --fail-on warning',
      current: '1.1.0',
      changes: [widened],
      allow: [],
      failOn: 'warning' as const,
      passed: false,
      blocking: 1,
      stale: 0,
    },
    {
      case: 'an allowed warning at --fail-on warning',
      current: '1.1.0',
      changes: [widened],
      allow: [{ kind: widened.kind, pointer: widened.pointer, reason: 'receivers ignore unknown kinds' }],
      failOn: 'warning' as const,
      passed: true,
      blocking: 0,
      stale: 0,
    },
    {
      case: 'an unclassified change at --fail-on unclassified',
      current: '1.1.0',
      changes: [unclassified, widened],
      allow: [],
      failOn: 'unclassified' as const,
      passed: false,
      blocking: 1,
      stale: 0,
    },
    {
      case: 'an unclassified change at --fail-on breaking',
      current: '1.1.0',
      changes: [unclassified],
      allow: [],
      passed: true,
      blocking: 0,
      stale: 0,
    },
  ])('$case: passed=$passed', ({ current, changes, allow, passed, blocking, stale, ...rest }) => {
    const failOn = 'failOn' in rest ? rest.failOn : undefined;
    const result = evaluateGate({
      releasedVersion: '1.0.0',
      currentVersion: current,
      changes,
      allow: { entries: allow, invalid: [] },
      ...(failOn ? { failOn } : {}),
    });
    expect(result.passed).toBe(passed);
    expect(result.blocking).toHaveLength(blocking);
    expect(result.stale).toHaveLength(stale);
  });

  it('fails on an unusable allow entry even without breaking changes', () => {
    const result = evaluateGate({
      releasedVersion: '1.0.0',
      currentVersion: '1.0.0',
      changes: [],
      allow: { entries: [], invalid: ['allowed[0] has no reason'] },
    });
    expect(result.passed).toBe(false);
  });

  it('refuses an allow entry whose pointer exists in neither version', () => {
    const exists = (pointer: string) => pointer === removed.pointer;
    const input = {
      releasedVersion: '1.0.0',
      currentVersion: '1.0.1',
      changes: [removed],
      allow: { entries: [allowNote, allowByUse], invalid: [] },
      pointerExists: exists,
    };
    const result = evaluateGate(input);
    expect(result.passed).toBe(false);
    expect(result.invalid).toEqual([expect.stringContaining(`allow entry property-removed ${USE_POINTER}: the pointer exists in neither`)]);
  });

  it('tells the author the three ways out, with a ready allow entry', () => {
    const input = { releasedVersion: '1.4.2', currentVersion: '1.5.0', changes: [removed], allow: { entries: [], invalid: [] } };
    const text = formatGate(evaluateGate(input), input, {
      specFile: 'openapi/openapi.yaml',
      allowFile: 'openapi/released/allowed-breaking-changes.yaml',
      releasedFile: 'openapi/released/1.4.2.json',
    });
    expect(text).toContain('revert the change in openapi/openapi.yaml');
    expect(text).toContain('set info.version to 2.0.0 in openapi/openapi.yaml');
    expect(text).toContain(
      `       - kind: property-removed\n         pointer: ${removed.pointer}\n         reason: <why no integrated client breaks>`,
    );
  });
});
