/**
 * Dragino LSN50v2 (or SN50v3-LB) in counting mode (MOD=6) with a tipping-bucket rain gauge on its
 * interrupt input: each tip counts one.
 */
import { lorawanProfileSchema } from '../schema.ts';

export const draginoLsn50v2Count = lorawanProfileSchema.parse({
  name: 'dragino-lsn50v2-count',
  label: 'Dragino LSN50v2 in counting mode with a tipping-bucket rain gauge',
  source:
    'Dragino LSN50v2 LoRaWAN Sensor Node User Manual, working mode MOD=6 (counting), uplink on port 2: battery (mV) in bytes 0-1, the 32-bit count in bytes 7-10, big-endian (https://wiki.dragino.com/xwiki/bin/view/Main/User%20Manual%20for%20LoRaWAN%20End%20Nodes/LSN50%20%26%20LSN50-V2%20-%20LoRaWAN%20Sensor%20Node%20User%20Manual/); decoder: github.com/dragino/dragino-end-node-decoder LSN50v2',
  kinds: ['rain-gauge'],
  transport: 'lorawan',
  fields: [
    // The count restarts at 0 when the node restarts: a drop in tips is read as a restart, never as rain.
    { reading: 'rainTips', from: { byte: 7, format: 'uint32', fPort: 2 } },
    { reading: 'batteryV', from: { byte: 0, format: 'uint16', fPort: 2 }, scale: 0.001 },
  ],
});
