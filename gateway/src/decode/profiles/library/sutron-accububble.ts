import type { Profile } from '../schema.ts';

/**
 * Sutron Accububble, a bubbler: an SDI-12 pressure sensor that gives the water level above its orifice
 * line. `aM!` answers `attt2`; after the service request `aD0!` returns the level and the indicator of
 * its units (set with the sensor's `XUP` command). The profile takes the units set to feet, as in the
 * manual's example `0+10.23+0` (10.23 ft): the level in inches is the first value times 12.
 */
export const sutronAccububble: Profile = {
  name: 'sutron-accububble',
  label: 'Sutron Accububble bubbler water level sensor, units set to feet (SDI-12)',
  source:
    'Sutron Accububble 56-0131-50-1 manual, SDI-12 command table (M: attt2, then a service request; D0: axu, the level and its units; example 0+10.23+0, a level of 10.23 feet): https://manualshive.com/en/manual/sutron/accububble-56-0131-50-1/1407883?page=33',
  kinds: ['sediment-trap', 'holding-tank', 'septic-tank', 'septic-panel'],
  transport: 'sdi12',
  command: 'M',
  fields: [{ reading: 'levelIn', from: { index: 1 }, scale: 12, offset: 0, invert: false }],
};
