import type { ModbusProfile } from '../schema.ts';

/**
 * ICP DAS ALM-04-MRTU alarm module: four dry-contact inputs read as discrete inputs 0-3 (function 2,
 * 0 = off, 1 = on). Wired as the gateway expects: input 1 the pump alarm contact, 2 the high-water float,
 * 3 the blower alarm, 4 the control panel's fault contact (a closed contact is the alarm).
 */
export const icpdasAlm04Mrtu: ModbusProfile = {
  name: 'icpdas-alm-04-mrtu',
  label: 'ICP DAS ALM-04-MRTU alarm module (4 contact inputs), Modbus RTU',
  source:
    'ICP DAS ALM-04-MRTU User’s Manual Rev 1.0 (January 2020), 4.4 Address Mapping, Table 4-6: ' +
    'FC02 Read Discrete Inputs 10001-10004, Modbus addresses 0-3, channels 1-4, 0 = OFF, 1 = ON. ' +
    'https://manualshive.com/en/manual/icp-das-usa/alm-04-mrtu/3560286?page=25',
  kinds: ['septic-panel', 'septic-tank', 'holding-tank'],
  transport: 'modbus',
  fields: [
    { reading: 'alarms.pump', from: discrete(0), scale: 1, offset: 0, invert: false },
    { reading: 'alarms.highWater', from: discrete(1), scale: 1, offset: 0, invert: false },
    { reading: 'alarms.blower', from: discrete(2), scale: 1, offset: 0, invert: false },
    { reading: 'alarms.panel', from: discrete(3), scale: 1, offset: 0, invert: false },
  ],
};

function discrete(address: number) {
  return { table: 'discrete' as const, address, format: 'uint16' as const, wordOrder: 'high-first' as const };
}
