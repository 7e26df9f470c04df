import type { ModbusProfile } from '../schema.ts';

/**
 * Aquaread LeveLine-CTD, a submersible level probe with a Modbus RTU port, read as a water level: the
 * pressure above the probe (input registers 1-2, tenths of a millibar, upper word first, two's
 * complement) times 0.401463 inches of water per millibar. A vented (gauge) probe hung at the bottom; a
 * probe hung higher adds its height as `offset` in a profile written out.
 */
export const aquareadLevelineCtd: ModbusProfile = {
  name: 'aquaread-leveline-ctd',
  label: 'Aquaread LeveLine-CTD level probe (vented), Modbus RTU',
  source:
    'Aquaread LeveLine Instruction Manual, document 10401-01026 Rev D (2019), 6.15 MODBUS Register Map, ' +
    'LeveLine-CTD input registers: 0x0001-0x0002 pressure (mbar x 10), upper 16 bits first, two’s complement. ' +
    'https://manualshive.com/en/manual/aquaread/leveline/2960648?page=82',
  kinds: ['sediment-trap', 'septic-tank', 'holding-tank'],
  transport: 'modbus',
  fields: [
    {
      reading: 'levelIn',
      from: { table: 'input', address: 1, format: 'int32', wordOrder: 'high-first' },
      // 0.1 mbar per count; 1 mbar = 100 Pa = 0.401463 in of water (1 inH2O = 249.08891 Pa).
      scale: 0.0401463,
      offset: 0,
      invert: false,
    },
  ],
};
