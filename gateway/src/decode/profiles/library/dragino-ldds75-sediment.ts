/**
 * Dragino LDDS75 over a sediment trap: the same ultrasonic distance sensor and frame as `dragino-ldds75`,
 * mounted looking down at the trap's bottom. When the trap is dry, what it sees is the top of the
 * sediment: the sediment's depth is the mounting height minus the distance.
 */
import { lorawanProfileSchema } from '../schema.ts';
import { draginoLdds75 } from './dragino-ldds75.ts';

export const draginoLdds75Sediment = lorawanProfileSchema.parse({
  name: 'dragino-ldds75-sediment',
  label: 'Dragino LDDS75 LoRaWAN ultrasonic distance sensor, over a sediment trap',
  source: draginoLdds75.source,
  kinds: ['sediment-trap'],
  transport: 'lorawan',
  fields: [
    // The distance down to the sediment's top, mm to inches; the sediment's depth is the mounting height minus it.
    {
      reading: 'sedimentIn',
      from: { byte: 2, format: 'uint16', fPort: 2 },
      scale: 1 / 25.4,
      derive: 'mount-minus',
    },
    { reading: 'batteryV', from: { byte: 0, format: 'uint16', fPort: 2 }, scale: 0.001 },
  ],
});
