/**
 * Dragino CPL01: a dry-contact sensor over LoRaWAN, wired to a tank's high-water float switch that closes
 * when the water reaches it.
 */
import { lorawanProfileSchema } from '../schema.ts';

export const draginoCpl01Float = lorawanProfileSchema.parse({
  name: 'dragino-cpl01-float',
  label: 'Dragino CPL01 LoRaWAN dry contact, on a high-water float switch',
  source:
    'Dragino CPL01 LoRaWAN Outdoor Open/Close Dry Contact Sensor User Manual, uplink on port 2: byte 0 bit 0 is the contact (1 open, 0 closed), bit 1 the alarm flag (https://wiki.dragino.com/xwiki/bin/view/Main/User%20Manual%20for%20LoRaWAN%20End%20Nodes/CPL01%20LoRaWAN%20Outdoor%20PulseContact%20%20Sensor%20Manual/); decoder: github.com/TheThingsNetwork/lorawan-devices vendor/dragino/cpl01.js',
  kinds: ['septic-tank', 'holding-tank', 'septic-panel'],
  transport: 'lorawan',
  fields: [
    // The contact closed (bit 0 = 0) is the float up: the high-water alarm.
    { reading: 'alarms.highWater', from: { byte: 0, format: 'uint8', bit: 0, fPort: 2 }, invert: true },
  ],
});
