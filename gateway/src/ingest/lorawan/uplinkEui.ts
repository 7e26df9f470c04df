/**
 * The DevEUI of an uplink, read cheaply for its link's counts: from the topic (ChirpStack), or from the
 * message's first `dev_eui` (The Things Stack's `end_device_ids.dev_eui`). Undefined when it is not
 * there; the decoder reads the message in full (decode/native/lorawan.ts).
 */
import { CHIRPSTACK_UP, THINGS_STACK_UP } from '../../decode/native/lorawanShapes.ts';

const TTS_DEV_EUI = /"dev_eui"\s*:\s*"([0-9A-Fa-f]{16})"/;

export function devEuiOf(topic: string, payload: Buffer | string): string | undefined {
  const cs = CHIRPSTACK_UP.exec(topic);
  if (cs) return cs[2]!.toLowerCase();
  if (!THINGS_STACK_UP.test(topic)) return undefined;
  const text = typeof payload === 'string' ? payload : payload.toString('utf8', 0, 4096);
  return TTS_DEV_EUI.exec(text)?.[1]?.toLowerCase();
}
