import { describe, expect, it } from 'vitest';
import type { NativeDevice } from '../../../gateway/src/decode/native/types.ts';
import { decodeNative } from '../../../gateway/src/decode/native.ts';
import { profileByName, resolveProfile } from '../../../gateway/src/decode/profiles/library/index.ts';
import { profileSchema } from '../../../gateway/src/decode/profiles/schema.ts';
import { parseDataLine } from '../../../gateway/src/decode/sdi12Protocol.ts';

type Dev = NativeDevice & { device: NativeDevice['device'] & { profile?: unknown } };

const AT = Date.UTC(2026, 3, 2, 14, 0);
const opts = { maxPayloadBytes: 4096, maxFutureMs: 60_000 };

function decode(dev: Dev, values: number[], topic = `sdi12:${dev.siteId}/${dev.deviceId}`) {
  const registry = {
    lookup: (s: string, d: string) => (s === dev.siteId && d === dev.deviceId ? dev : undefined),
    byDevEui: () => undefined,
  };
  const ctx = {
    profileOf: (d: Dev) => resolveProfile(d.device.profile as never),
    mapping: () => ({}),
  };
  const payload = JSON.stringify({ measuredAt: AT, address: '0', command: 'M', values });
  return decodeNative({ transport: 'sdi12', topic, payload, receivedAt: AT + 500 }, registry, ctx, opts);
}

const valuesOf = (line: string) => {
  const p = parseDataLine(line, line[0]!, false);
  if (!p.ok) throw new Error(p.error);
  return p.values;
};

describe('SDI-12 measurements through a profile', () => {
  it('the library profiles are valid', () => {
    for (const name of ['sutron-accububble', 'sutron-sdi-tb'])
      expect(profileSchema.safeParse(profileByName(name)).success).toBe(true);
  });

  it('Sutron Accububble: the manual example 0+10.23+0 (10.23 ft) is a level of 122.76 in, stamped at the measurement', () => {
    const dev: Dev = {
      siteId: 's',
      deviceId: 'tank',
      kind: 'holding-tank',
      device: { transport: 'sdi12', profile: 'sutron-accububble' },
    };
    const r = decode(dev, valuesOf('0+10.23+0'));
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.reading.values).toEqual({ levelIn: 122.76 });
    expect(r.reading.ts).toBe(AT);
    expect(r.reading.transport).toBe('sdi12');
  });

  it('Sutron SDI-TB: the manual example 0+0.01+12+0.12+0.03+0.02 is 0.01 in of rain since the last measurement', () => {
    const dev: Dev = {
      siteId: 's',
      deviceId: 'rg',
      kind: 'rain-gauge',
      device: { transport: 'sdi12', profile: 'sutron-sdi-tb' },
    };
    const r = decode(dev, valuesOf('0+0.01+12+0.12+0.03+0.02'));
    expect(r.ok && r.reading.values).toEqual({ rainIn: 0.01 });
  });

  it('a distance sensor written out: the level is the mounting height minus the distance', () => {
    const dev: Dev = {
      siteId: 's',
      deviceId: 'trap',
      kind: 'sediment-trap',
      device: {
        transport: 'sdi12',
        mountHeightIn: 36,
        profile: profileSchema.parse({
          name: 'distance',
          label: 'a distance sensor',
          source: 'test',
          kinds: ['sediment-trap'],
          transport: 'sdi12',
          fields: [{ reading: 'sedimentIn', from: { index: 2 }, scale: 0.1, derive: 'mount-minus' }],
        }),
      },
    };
    const r = decode(dev, [21.5, 240]);
    expect(r.ok && r.reading.values).toEqual({ sedimentIn: 12 });
    const short = decode(dev, [21.5]);
    expect(short).toMatchObject({
      ok: false,
      detail: expect.stringContaining('returned 1 values, not the 2nd'),
    });
  });

  it('refuses a device that is not SDI-12, an unknown device and a malformed measurement', () => {
    const dev: Dev = { siteId: 's', deviceId: 'x', kind: 'rain-gauge', device: { transport: 'modbus' } };
    expect(decode(dev, [1])).toMatchObject({ ok: false, reason: 'bad_topic' });
    expect(decode(dev, [1], 'sdi12:s/other')).toMatchObject({ ok: false, reason: 'unregistered_device' });
    const gauge: Dev = { ...dev, device: { transport: 'sdi12', profile: 'sutron-sdi-tb' } };
    expect(decode(gauge, [Number.NaN])).toMatchObject({ ok: false });
  });
});
