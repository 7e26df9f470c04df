/** Dragino LDDS75: an ultrasonic distance sensor over LoRaWAN, mounted above a tank or a basin. */
import { lorawanProfileSchema } from '../schema.ts';

export const draginoLdds75 = lorawanProfileSchema.parse({
  name: 'dragino-ldds75',
  label: 'Dragino LDDS75 LoRaWAN ultrasonic distance sensor',
  source:
    'Dragino LDDS75 LoRaWAN Distance Detection Sensor User Manual, uplink payload on port 2: battery (mV) in bytes 0-1, distance (mm) in bytes 2-3, both big-endian (https://wiki.dragino.com/xwiki/bin/view/Main/User%20Manual%20for%20LoRaWAN%20End%20Nodes/LDDS75%20-%20LoRaWAN%20Distance%20Detection%20Sensor%20User%20Manual/); decoder: github.com/TheThingsNetwork/lorawan-devices vendor/dragino/ldds75.js',
  kinds: ['septic-tank', 'holding-tank', 'sediment-trap'],
  transport: 'lorawan',
  fields: [
    // The distance down to the surface, mm to inches; the level is the mounting height minus it.
    {
      reading: 'levelIn',
      from: { byte: 2, format: 'uint16', fPort: 2 },
      scale: 1 / 25.4,
      derive: 'mount-minus',
    },
    { reading: 'batteryV', from: { byte: 0, format: 'uint16', fPort: 2 }, scale: 0.001 },
  ],
});
