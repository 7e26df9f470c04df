/**
 * Remedies from the engineer's annual inspection (law 000, 5.030 B 1 d): each deficiency opens a 5-day
 * (equipment) or 30-day (absorption field) duty counted from the submittal, whole local days, the day of
 * the submittal not counted; a later inspection naming it remedied meets it.
 */
import { describe, expect, it } from 'vitest';
import { deficiencyEvaluator } from '../../../gateway/src/rules/deficiency-remedy/evaluator.ts';
import { deficiencyRemedy } from '../../../gateway/src/rules/deficiency-remedy/index.ts';
import type { RuleInput } from '../../../gateway/src/rules/types.ts';
import type { InspectionDetails } from '../../../shared/src/api/findings.ts';
import { ctxOf, run, type SiteContext } from '../helpers.ts';

const ctx: SiteContext = ctxOf({ kind: 'alternative-system', devices: [] });

function inspection(id: string, at: string, details: InspectionDetails, receivedAt: string = at): RuleInput {
  return {
    type: 'inspection',
    siteId: 's1',
    at: Date.parse(at),
    receivedAt: Date.parse(receivedAt),
    kind: 'annual',
    inspector: 'R. Engineer, P.E.',
    id,
    details,
  };
}

const feed = (inputs: RuleInput[], c = ctx) => run(deficiencyEvaluator, c, inputs, { checkPurity: true });

describe('deficiency-remedy', () => {
  it('an equipment deficiency is due at the end of the 5th local day after the submittal, not the inspection', () => {
    // Inspected July 1, submitted to the town July 3 at 4 PM (EDT): due at the end of July 8, local.
    const { sink } = feed([
      inspection(
        'insp-A',
        '2026-07-01T14:00:00Z',
        { deficiencies: [{ kind: 'equipment', note: 'Aerator not running' }] },
        '2026-07-03T20:00:00Z',
      ),
    ]);
    const [a] = [...sink.alerts.values()];
    expect(a).toMatchObject({
      key: 'equipment-deficiency:s1:insp-A/1',
      rule: 'equipment-deficiency',
      status: 'open',
      at: Date.parse('2026-07-03T20:00:00Z'),
      dueAt: Date.parse('2026-07-09T04:00:00Z') - 1,
    });
    expect(a!.message).toContain('Aerator not running');
    expect(a!.message).toContain('by the end of July 8, 2026');
  });

  it('a field deficiency is due at the end of the 30th day; a submittal at 23:59 counts from its own day', () => {
    const { sink } = feed([
      inspection(
        'insp-B',
        '2026-07-31T12:00:00Z',
        {
          deficiencies: [
            { kind: 'field', note: 'Ponding over the north trench' },
            { kind: 'equipment', note: 'Alarm light out' },
          ],
        },
        // 11:59 PM EDT on July 31.
        '2026-08-01T03:59:00Z',
      ),
    ]);
    const byKey = new Map([...sink.alerts.values()].map((a) => [a.key, a]));
    // July 31 + 30 days = August 30: due at its end, midnight EDT.
    expect(byKey.get('field-deficiency:s1:insp-B/1')).toMatchObject({
      rule: 'field-deficiency',
      dueAt: Date.parse('2026-08-31T04:00:00Z') - 1,
    });
    expect(byKey.get('equipment-deficiency:s1:insp-B/2')).toMatchObject({
      dueAt: Date.parse('2026-08-06T04:00:00Z') - 1,
    });
  });

  it('the last day is whole across a daylight-saving change', () => {
    // Submitted Friday Oct 30, 2026 (EDT); 5 days: Nov 4, after the change back to EST on Nov 1.
    const { sink } = feed([
      inspection('insp-C', '2026-10-30T15:00:00Z', { deficiencies: [{ kind: 'equipment', note: 'Pump' }] }),
    ]);
    expect([...sink.alerts.values()][0]!.dueAt).toBe(Date.parse('2026-11-05T05:00:00Z') - 1);
  });

  it('a later inspection naming it remedied meets it at its time; the others stay open', () => {
    const { sink, state } = feed([
      inspection('insp-A', '2026-07-01T14:00:00Z', {
        deficiencies: [
          { kind: 'equipment', note: 'Aerator not running' },
          { kind: 'field', note: 'Ponding' },
        ],
      }),
      inspection('insp-D', '2026-07-04T15:00:00Z', { remedied: ['insp-A/1', 'insp-Z/9'] }),
    ]);
    const byKey = new Map([...sink.alerts.values()].map((a) => [a.key, a]));
    expect(byKey.get('equipment-deficiency:s1:insp-A/1')).toMatchObject({ status: 'resolved' });
    expect(sink.effects.find((e) => e.type === 'resolve')).toMatchObject({
      at: Date.parse('2026-07-04T15:00:00Z'),
      evidence: { deficiency: 'insp-A/1', remediedBy: 'insp-D' },
    });
    expect(byKey.get('field-deficiency:s1:insp-A/2')).toMatchObject({ status: 'open' });
    expect(state.open.map((o) => o.id)).toEqual(['insp-A/2']);
  });

  it('remedied before the submittal that reported it: met at the duty’s start', () => {
    const { sink } = feed([
      inspection(
        'insp-A',
        '2026-07-01T14:00:00Z',
        { deficiencies: [{ kind: 'equipment', note: 'Pump' }] },
        '2026-07-10T14:00:00Z',
      ),
      inspection('insp-E', '2026-07-02T14:00:00Z', { remedied: ['insp-A/1'] }, '2026-07-11T14:00:00Z'),
    ]);
    const resolve = sink.effects.find((e) => e.type === 'resolve');
    expect(resolve?.at).toBe(Date.parse('2026-07-10T14:00:00Z'));
  });

  it('a person closing it: the evaluator forgets it; the same inspection fed again opens nothing twice', () => {
    const first = feed([
      inspection('insp-A', '2026-07-01T14:00:00Z', { deficiencies: [{ kind: 'equipment', note: 'Pump' }] }),
    ]);
    expect(first.sink.count('open')).toBe(1);
    const again = feed(
      [inspection('insp-A', '2026-07-01T14:00:00Z', { deficiencies: [{ kind: 'equipment', note: 'Pump' }] })],
      ctx,
    );
    expect(again.state.open).toHaveLength(1);
    const closed = run(
      deficiencyEvaluator,
      ctx,
      [
        {
          type: 'alert-closed',
          key: 'equipment-deficiency:s1:insp-A/1',
          at: Date.parse('2026-07-02T00:00:00Z'),
          how: 'manual',
        },
      ],
      { state: first.state },
    );
    expect(closed.state.open).toHaveLength(0);
  });

  it('an inspection without deficiencies, or of another site, opens nothing', () => {
    const { sink } = feed([
      inspection('insp-A', '2026-07-01T14:00:00Z', {}),
      {
        ...(inspection('insp-B', '2026-07-01T14:00:00Z', {
          deficiencies: [{ kind: 'field', note: 'x' }],
        }) as object),
        siteId: 's2',
      } as RuleInput,
    ]);
    expect(sink.alerts.size).toBe(0);
  });

  it('is extendable by an engineer’s letter, binds per advanced-system site (a holding tank’s too)', () => {
    expect(deficiencyRemedy.duty.extendable).toBe(true);
    const binds = deficiencyRemedy.binds;
    if (!('perSite' in binds)) throw new Error('per site');
    expect(binds.perSite(ctxOf({ kind: 'holding-tank', devices: [] }).site as never)).toEqual({
      devices: [],
    });
    expect(binds.perSite(ctxOf({ kind: 'alternative-system', devices: [] }).site as never)).toEqual({
      devices: [],
    });
    expect(binds.perSite(ctxOf({ kind: 'septic', devices: [] }).site as never)).toBeUndefined();
    expect(binds.perSite(ctxOf({ kind: 'construction', devices: [] }).site as never)).toBeUndefined();
  });
});
