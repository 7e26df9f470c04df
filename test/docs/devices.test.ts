/**
 * docs/devices.md's profiles written out are configurations the gateway takes: each example, as the
 * guide gives it, passes the configuration's checks, and its profile maps a message to what the guide
 * says it means.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { parseConfig } from '../../gateway/src/config/load.ts';
import type { DeviceConfig } from '../../gateway/src/config/schema.ts';
import { mapFields, type RawValue } from '../../gateway/src/decode/profiles/map.ts';
import type { Profile } from '../../gateway/src/decode/profiles/schema.ts';

const PAGE = readFileSync(join(import.meta.dirname, '../../docs/devices.md'), 'utf8');

/** The guide's YAML examples whose device writes its profile out. */
const examples = [...PAGE.matchAll(/```yaml\n([\s\S]*?)```/g)]
  .map((m) => parseYaml(m[1]!) as Record<string, unknown>)
  .filter((y) => JSON.stringify(y).includes('"fields"'));

/** An example as a whole configuration: a bare `devices:` list goes onto a site of its own. */
function configOf(y: Record<string, unknown>) {
  const { devices, ...rest } = y;
  return parseConfig({ gatewayId: 'g', sites: [{ id: 'example', kind: 'holding-tank', devices }], ...rest });
}

const deviceOf = (y: Record<string, unknown>): DeviceConfig => configOf(y).sites[0]!.devices[0]!;

describe('the devices guide', () => {
  it('writes a profile out for each transport', () => {
    expect(examples.map((y) => (deviceOf(y).profile as Profile).transport)).toEqual([
      'lorawan',
      'modbus',
      'sdi12',
    ]);
  });

  it('LoRaWAN: 20 in measured down from a sensor 72 in up is a 52 in level, the float up an alarm', () => {
    const d = deviceOf(examples[0]!);
    const raw: Record<string, RawValue> = { batteryV: 3600, levelIn: 508, 'alarms.highWater': 1 };
    const m = mapFields(d.profile as Profile, (f) => raw[f.reading], d);
    expect(m).toEqual({
      ok: true,
      telemetry: { batteryV: 3.6, levelIn: 51.999989, alarms: { highWater: true } },
      values: { batteryV: 3.6, levelIn: 51.999989, 'alarms.highWater': true },
    });
  });

  it('Modbus: 1.2 m is 47.2 in; SDI-12: 2.5 ft down from a well top 96 in up is a 66 in level', () => {
    const modbus = deviceOf(examples[1]!);
    expect(mapFields(modbus.profile as Profile, (f) => (f.reading === 'levelIn' ? 1.2 : 0), modbus)).toEqual({
      ok: true,
      telemetry: { levelIn: 47.24412, alarms: { highWater: false } },
      values: { levelIn: 47.24412, 'alarms.highWater': false },
    });
    const sdi12 = deviceOf(examples[2]!);
    const values: Record<string, RawValue> = { levelIn: 2.5, batteryV: 12.1 };
    expect(mapFields(sdi12.profile as Profile, (f) => values[f.reading], sdi12)).toMatchObject({
      telemetry: { levelIn: 66, batteryV: 12.1 },
    });
  });
});
