import { describe, expect, it } from 'vitest';
import {
  applyInputs,
  evaluatorsFor,
  RULE_IDS,
  type RuleId,
  ruleContext,
} from '../../gateway/src/rules/index.ts';
import { DAY, HOUR, reading, site, T0, tick } from './helpers.ts';

describe('rule registry', () => {
  const construction = site({
    id: 'maple',
    kind: 'construction',
    devices: [
      { id: 'rg-1', kind: 'rain-gauge', inchesPerTip: 0.01 },
      { id: 'trap-1', kind: 'sediment-trap', designDepthIn: 24 },
      { id: 'turb-up', kind: 'turbidity', role: 'background' },
      { id: 'turb-out', kind: 'turbidity', role: 'outlet' },
    ],
  });
  const alt = site({
    id: 'oak',
    kind: 'alternative-system',
    devices: [{ id: 'panel-1', kind: 'septic-panel', liquidDepthIn: 60 }],
  });
  const holding = site({
    id: 'ht',
    kind: 'holding-tank',
    devices: [{ id: 'ht-1', kind: 'holding-tank', highLevelIn: 48 }],
  });

  it('binds the rules of a construction site', () => {
    const b = evaluatorsFor(construction).map((x) => `${x.name}:${x.deviceId ?? '-'}`);
    expect(b.sort()).toEqual(
      [
        'routine-inspection:-',
        'storm-inspection:rg-1',
        'sediment-cleanout:trap-1',
        'turbidity-contrast:-',
        'device-silent:rg-1',
        'device-silent:trap-1',
        'device-silent:turb-up',
        'device-silent:turb-out',
        'device-clock:rg-1',
        'device-clock:trap-1',
        'device-clock:turb-up',
        'device-clock:turb-out',
        'violation-remedy:-',
        'developer-records:-',
      ].sort(),
    );
    const turb = evaluatorsFor(construction).find((x) => x.name === 'turbidity-contrast')!;
    expect([...turb.devices].sort()).toEqual(['turb-out', 'turb-up']);
  });

  it('names each binding by module, site and device, and shares what bindings have in common', () => {
    const all = evaluatorsFor(construction);
    const storm = all.find((x) => x.name === 'storm-inspection')!;
    const silent = all.find((x) => x.name === 'device-silent' && x.deviceId === 'rg-1')!;
    const routine = all.find((x) => x.name === 'routine-inspection')!;
    expect(storm.id).toBe('storm-inspection:maple:rg-1');
    expect(routine.id).toBe('routine-inspection:maple');
    expect(storm.devices).toEqual(['rg-1']);
    // A device's bindings share one device list, and a module's bindings one list of rule ids.
    expect(silent.devices).toBe(storm.devices);
    const again = evaluatorsFor(construction).find((x) => x.name === 'storm-inspection')!;
    expect(again.rules).toBe(storm.rules);
    expect(again.stateKey).toBe('storm-inspection');
  });

  it('binds the rules of an alternative system and a holding tank', () => {
    expect(
      evaluatorsFor(alt)
        .map((x) => `${x.name}:${x.deviceId ?? '-'}`)
        .sort(),
    ).toEqual(
      [
        'annual-inspection:-',
        'deficiency-remedy:-',
        'device-silent:panel-1',
        'device-clock:panel-1',
        'remedy:panel-1',
        'septic-pumping:panel-1',
        // The pumping duty is the owner's whatever sensors exist: bound to the site too, which keeps it
        // while no tank device does (here the panel keeps it).
        'septic-pumping:-',
        // The Enforcement Officer's orders (law 000, 5.100 B) are duties here too.
        'violation-remedy:-',
      ].sort(),
    );
    // A holding tank is an advanced system (law 000, 5.030 B 1 b): the annual inspection, its
    // deficiencies' remedies, and its high-water alarm's 5-day remedy; and the notices' remedies.
    expect(
      evaluatorsFor(holding)
        .map((x) => x.name)
        .sort(),
    ).toEqual([
      'annual-inspection',
      'deficiency-remedy',
      'device-clock',
      'device-silent',
      'holding-tank-pumpout',
      'remedy',
      'violation-remedy',
    ]);
  });

  it('gives every binding a unique id and covers every rule id', () => {
    const all = [construction, alt, holding].flatMap(evaluatorsFor);
    expect(new Set(all.map((b) => b.id)).size).toBe(all.length);
    const rules = new Set<RuleId>(all.flatMap((b) => [b.evaluator.rule].flat()));
    expect([...rules].sort()).toEqual([...RULE_IDS].sort());
  });

  it('every evaluator inits a JSON state and accepts every kind of input', () => {
    for (const s of [construction, alt, holding]) {
      const ctx = ruleContext(s);
      for (const b of evaluatorsFor(s)) {
        const state = b.evaluator.init(ctx, b.deviceId);
        expect(JSON.parse(JSON.stringify(state))).toEqual(state);
        const out = applyInputs(
          b.evaluator,
          state,
          [
            tick(T0),
            reading('another-device', T0 + HOUR, { batteryV: 12 }),
            reading(b.deviceId ?? 'x', T0 + HOUR, { batteryV: 12 }),
            { type: 'inspection', siteId: s.id, at: T0 + 2 * HOUR, kind: 'routine', inspector: 'x', id: 'i' },
            { type: 'alert-closed', key: 'nope', at: T0, how: 'manual' },
            tick(T0 + 400 * DAY),
          ],
          ctx,
        );
        expect(JSON.parse(JSON.stringify(out.state))).toEqual(out.state);
      }
    }
  });

  it('uses the site time zone, else the gateway one', () => {
    expect(ruleContext(construction, 'Europe/Paris').timezone).toBe('Europe/Paris');
    expect(ruleContext({ ...construction, timezone: 'America/Chicago' }).timezone).toBe('America/Chicago');
  });
});
