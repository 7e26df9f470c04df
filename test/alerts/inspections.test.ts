import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Effect, RuleInput, StormEvent } from '../../gateway/src/rules/types.ts';
import { completeInput } from '../helpers/inspections.ts';
import { H, type Harness, makeEngine, notifications, reading, scripted, T0, tempDir } from './support.ts';

let tmp: ReturnType<typeof tempDir>;
let h: Harness;
const queues = new Map<string, Effect[][]>();
const seen = new Map<string, RuleInput[]>();
/** What the site's evaluator answers an inspection with (the storm rule resolves the storms it follows). */
const onInspection = new Map<string, (input: RuleInput) => Effect[]>();

function emit(siteId: string, ...effects: Effect[]) {
  queues.get(siteId)!.push(effects);
  h.engine.handleReadings([
    reading(siteId, siteId === 'site-a' ? 'rg-1' : 'rg-2', h.clock.now, { rainTips: 1 }),
  ]);
}

const stormAlert = (siteId: string, key: string, at: number): Effect => ({
  type: 'open',
  rule: 'storm-inspection',
  siteId,
  deviceId: siteId === 'site-a' ? 'rg-1' : 'rg-2',
  key,
  at,
  dueAt: at + 24 * H,
  message: `storm ${key}`,
  evidence: { stormId: key },
});

beforeEach(() => {
  tmp = tempDir();
  queues.clear();
  seen.clear();
  onInspection.clear();
  h = makeEngine(join(tmp.dir, 'gw.db'), (site) => {
    const q: Effect[][] = [];
    queues.set(site.id, q);
    const ev = scripted(['storm-inspection', 'equipment-remedy'], (input) =>
      input.type === 'reading'
        ? (q.shift() ?? [])
        : input.type === 'inspection'
          ? (onInspection.get(site.id)?.(input) ?? [])
          : [],
    );
    seen.set(site.id, ev.seen);
    return [{ evaluator: ev }];
  });
});

afterEach(() => {
  if (h.db.open) h.db.close();
  tmp.cleanup();
});

describe('inspections', () => {
  it('close the storm alerts their evaluator resolves, and only those: not every storm raised before them', () => {
    emit('site-a', stormAlert('site-a', 's1', T0));
    emit('site-a', stormAlert('site-a', 's2', T0 + 10 * H));
    emit('site-b', stormAlert('site-b', 's1', T0));
    emit('site-a', {
      type: 'open',
      rule: 'equipment-remedy',
      siteId: 'site-a',
      key: 'pump',
      at: T0,
      dueAt: T0 + 5 * 24 * H,
      message: 'pump',
      evidence: {},
    });
    // The storm evaluator resolves the storm the inspection follows (s1); s2 was still raining.
    onInspection.set('site-a', (i) =>
      i.type === 'inspection' && i.kind === 'storm'
        ? [
            {
              type: 'resolve',
              key: 's1',
              at: i.at,
              message: 'inspected',
              evidence: { inspectionId: i.id },
            },
          ]
        : [],
    );
    h.clock.now = T0 + 12 * H;
    const r = h.engine.recordInspection(
      completeInput({
        siteId: 'site-a',
        at: T0 + 8 * H,
        inspector: 'Ina Spector',
        kind: 'storm',
        notes: 'silt fence ok',
      }),
      'ina',
    );
    expect(r.inspection).toMatchObject({
      siteId: 'site-a',
      inspector: 'Ina Spector',
      kind: 'storm',
      recordedBy: 'ina',
    });
    expect(r.closedAlertIds).toHaveLength(1);
    const closed = h.engine.getAlert(r.closedAlertIds[0]!)!;
    expect(closed.message).toBe('storm s1');
    expect(closed.siteId).toBe('site-a');
    expect(closed.status).toBe('resolved');
    expect(closed.withinDeadline).toBe(true);
    expect(closed.resolvedAt).toBe(new Date(T0 + 8 * H).toISOString());
    expect(closed.resolution).toMatchObject({ evidence: { inspectionId: r.inspection.id } });

    const open = h.engine
      .listAlerts({ status: 'open' })
      .map((a) => `${a.siteId}/${a.message}`)
      .sort();
    expect(open).toEqual(['site-a/pump', 'site-a/storm s2', 'site-b/storm s1']);
    expect(notifications(h.db, 'resolve')).toHaveLength(1);

    // the evaluators of that site saw the inspection; the other site's did not
    const types = seen.get('site-a')!.map((i) => i.type);
    expect(types).toContain('inspection');
    expect(seen.get('site-b')!.some((i) => i.type === 'inspection')).toBe(false);

    // a late inspection the evaluator finds follows s2 closes it outside its deadline
    onInspection.set('site-a', (i) =>
      i.type === 'inspection'
        ? [{ type: 'resolve', key: 's2', at: i.at, message: 'inspected', evidence: { inspectionId: i.id } }]
        : [],
    );
    h.clock.now = T0 + 40 * H;
    const late = h.engine.recordInspection(
      completeInput({ siteId: 'site-a', at: T0 + 36 * H, inspector: 'Ina', kind: 'routine' }),
      'ina',
    );
    expect(late.closedAlertIds).toHaveLength(1);
    expect(h.engine.getAlert(late.closedAlertIds[0]!)!.withinDeadline).toBe(false);
    expect(h.engine.listInspections({ siteId: 'site-a', from: T0, to: T0 + 48 * H })).toHaveLength(2);
  });

  it('a cleanout or annual record does not close storm alerts; bad input is refused', () => {
    emit('site-a', stormAlert('site-a', 's1', T0));
    h.clock.now = T0 + 2 * H;
    expect(
      h.engine.recordInspection(
        completeInput({ siteId: 'site-a', at: T0 + H, inspector: 'x', kind: 'cleanout' }),
        'x',
      ).closedAlertIds,
    ).toEqual([]);
    expect(() =>
      h.engine.recordInspection(
        completeInput({ siteId: 'nowhere', at: T0, inspector: 'x', kind: 'storm' }),
        'x',
      ),
    ).toThrow(expect.objectContaining({ code: 'UNKNOWN_SITE' }));
    expect(() =>
      h.engine.recordInspection(
        completeInput({ siteId: 'site-a', at: T0 + 48 * H, inspector: 'x', kind: 'storm' }),
        'x',
      ),
    ).toThrow(expect.objectContaining({ code: 'BAD_INSPECTION' }));
    expect(() =>
      h.engine.recordInspection(
        completeInput({ siteId: 'site-a', at: T0, inspector: 'x', kind: 'bogus' as 'storm' }),
        'x',
      ),
    ).toThrow(expect.objectContaining({ code: 'BAD_INSPECTION' }));
    expect(h.engine.listAlerts({ status: 'open' })).toHaveLength(1);
  });
});

describe('listStorms', () => {
  const storm = (n: number, thresholdH: number | undefined, extra: Partial<StormEvent> = {}): StormEvent => ({
    id: `site-a:rg-1:${n}`,
    siteId: 'site-a',
    deviceId: 'rg-1',
    start: T0 + ((thresholdH ?? n * 50) - 1) * H,
    end: T0 + ((thresholdH ?? n * 50) + 1) * H,
    tips: thresholdH === undefined ? 20 : 60,
    inches: thresholdH === undefined ? 0.2 : 0.6,
    qualified: thresholdH !== undefined,
    ...(thresholdH !== undefined
      ? { thresholdAt: T0 + thresholdH * H, dueAt: T0 + (thresholdH + 25) * H }
      : {}),
    closed: true,
    ...extra,
  });

  it('reports each storm with its inspection: on time, late, missing, pending, not required', () => {
    h.clock.now = T0;
    emit(
      'site-a',
      { type: 'storm', event: storm(1, 1) },
      { type: 'storm', event: storm(2, 100) },
      { type: 'storm', event: storm(3, 200) },
      { type: 'storm', event: storm(4, 299, { closed: false }) },
      { type: 'storm', event: storm(5, undefined) },
    );
    emit('site-b', {
      type: 'storm',
      event: { ...storm(9, 1), id: 'site-b:rg-2:9', siteId: 'site-b', deviceId: 'rg-2' },
    });
    h.clock.now = T0 + 10 * H;
    h.engine.recordInspection(
      completeInput({ siteId: 'site-a', at: T0 + 10 * H, inspector: 'a', kind: 'storm' }),
      'a',
    );
    h.clock.now = T0 + 140 * H;
    h.engine.recordInspection(
      completeInput({ siteId: 'site-a', at: T0 + 140 * H, inspector: 'a', kind: 'routine' }),
      'a',
    );
    h.engine.recordInspection(
      completeInput({ siteId: 'site-a', at: T0 + 140 * H, inspector: 'a', kind: 'cleanout' }),
      'a',
    );
    h.clock.now = T0 + 300 * H;

    const storms = h.engine.listStorms({ siteId: 'site-a' });
    expect(storms.map((s) => [s.id, s.inspection.status])).toEqual([
      ['site-a:rg-1:1', 'on-time'],
      ['site-a:rg-1:2', 'late'],
      ['site-a:rg-1:3', 'missing'],
      ['site-a:rg-1:5', 'not-required'],
      ['site-a:rg-1:4', 'pending'],
    ]);
    expect(storms[0]!.inspection.inspectedAt).toBe(new Date(T0 + 10 * H).toISOString());
    expect(storms[1]!.inspection.inspectedAt).toBe(new Date(T0 + 140 * H).toISOString());
    expect(
      h.engine.listStorms({ siteId: 'site-a', from: T0 + 90 * H, to: T0 + 210 * H }).map((s) => s.id),
    ).toEqual(['site-a:rg-1:2', 'site-a:rg-1:3']);
    expect(h.engine.listStorms()).toHaveLength(6);
  });
});
