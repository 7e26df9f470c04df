import type { Profile } from '../schema.ts';

/**
 * Sutron SDI-TB, an SDI-12 interface for a tipping-bucket rain gauge. `aM!` answers `a0005`; `aD0!`
 * returns the rain since the last measurement (the sensor resets it at every `M`), the raw tips this rain
 * year, the rain this year, today and yesterday, in inches with the default bucket size (0.01 in a tip).
 * The rain since the last measurement is the gateway's `rainIn`.
 */
export const sutronSdiTb: Profile = {
  name: 'sutron-sdi-tb',
  label: 'Sutron SDI-TB tipping-bucket rain gauge interface (SDI-12)',
  source:
    'Sutron SDI-TB Operations & Maintenance Manual, part 8800-1205, rev. 1.1 (2018), 3.1 Standard SDI-12 commands (M: a0005; D0: a+<acc_last>+<raw_tip_year>+<acc_year>+<acc_daily>+<acc_yest>, e.g. 0+0.01+12+0.12+0.03+0.02) and XBKTSZ (0.01 in a tip by default): https://manualshive.com/en/manual/sutron/8800-1205/1407870?page=9',
  kinds: ['rain-gauge'],
  transport: 'sdi12',
  command: 'M',
  fields: [{ reading: 'rainIn', from: { index: 1 }, scale: 1, offset: 0, invert: false }],
};
