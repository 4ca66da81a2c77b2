import { describe, expect, it } from 'vitest';
import { formatReport, type DiffReport } from './report.js';
import type { Change } from './types.js';

const change = (classification: Change['classification'], kind: string, message: string): Change => ({
  classification,
  kind,
  document: 'openapi',
  pointer: `/components/schemas/Order/properties/${kind}`,
  message,
  uses: [
    { where: 'GET /orders', in: 'response 200 (application/json)', direction: 'response' },
    { where: 'GET /orders/{order_id}', in: 'response 200 (application/json)', direction: 'response' },
  ],
  useCount: 7,
});

const report: DiffReport = {
  from: 'origin/main:openapi/openapi.yaml',
  to: 'openapi/openapi.yaml',
  changes: [
    change('breaking', 'property-removed', 'GET /orders: removed | gone'),
    change('annotation', 'description-changed', 'GET /orders: reworded'),
  ],
};

describe('formatReport', () => {
  it.each([
    {
      format: 'text' as const,
      contains: [
        'origin/main:openapi/openapi.yaml -> openapi/openapi.yaml: 1 breaking, 0 unclassified, 0 warning, 0 non-breaking, 1 annotation',
        'Breaking changes (1):',
        '  property-removed  openapi#/components/schemas/Order/properties/property-removed',
        'used by 7: GET /orders response 200 (application/json); GET /orders/{order_id} response 200 (application/json); and 5 more',
        'Annotations (1):',
      ],
      lacks: 'Non-breaking changes',
    },
    {
      format: 'markdown' as const,
      contains: [
        '# API changes: origin/main:openapi/openapi.yaml -> openapi/openapi.yaml',
        '## Breaking changes (1)',
        '| property-removed | `openapi#/components/schemas/Order/properties/property-removed` | GET /orders: removed \\| gone | 7: GET /orders',
        '0 non-breaking change(s) and 1 annotation(s) are not listed here.',
      ],
      lacks: '## Non-breaking changes',
    },
    { format: 'json' as const, contains: ['"breaking": 1', '"kind": "property-removed"'], lacks: '"classification": "non-breaking"' },
  ])('$format', ({ format, contains, lacks }) => {
    const text = formatReport(report, format);
    for (const piece of contains) expect(text).toContain(piece);
    expect(text).not.toContain(lacks);
  });

  it('markdown lists the first --top entries of a section and counts the rest', () => {
    const many = Array.from({ length: 30 }, (_, i) => change('breaking', `k${i}`, `change ${i}`));
    const text = formatReport({ ...report, changes: many }, 'markdown', { top: 5 });
    expect(text.match(/^\| k\d+ /gm)).toHaveLength(5);
    expect(text).toContain('... and 25 more breaking change(s)');
  });

  it('json carries every change with its pointer and uses', () => {
    expect(JSON.parse(formatReport(report, 'json')).changes).toEqual(report.changes);
  });
});
