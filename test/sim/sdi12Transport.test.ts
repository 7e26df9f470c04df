/** The simulator's SDI-12 sensors give the raw value a profile maps back to the reading. */
import { describe, expect, it } from 'vitest';
import { rawFor } from '../../firmware-sim/src/transports/sdi12.ts';
import { mapFields } from '../../gateway/src/decode/profiles/map.ts';
import { profileSchema, type Sdi12Profile } from '../../gateway/src/decode/profiles/schema.ts';

const profile = profileSchema.parse({
  name: 'sim-test',
  label: 'p',
  source: 'test',
  kinds: ['sediment-trap'],
  transport: 'sdi12',
  fields: [
    { reading: 'sedimentIn', from: { index: 1 }, scale: 0.1, offset: 1, derive: 'mount-minus' },
    { reading: 'levelIn', from: { index: 2 }, scale: 12 },
  ],
}) as Sdi12Profile;

describe('rawFor', () => {
  it('is the profile mapping backwards', () => {
    const device = { mountHeightIn: 40 };
    const raws = profile.fields.map((f, i) => rawFor(f, [13.5, 30][i]!, device.mountHeightIn));
    expect(raws).toEqual([255, 2.5]);
    const mapped = mapFields(profile, (f) => raws[f.from.index - 1], device);
    expect(mapped).toMatchObject({ ok: true, telemetry: { sedimentIn: 13.5, levelIn: 30 } });
  });
});
