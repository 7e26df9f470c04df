/**
 * The uplink events of the two LoRaWAN network servers, as they publish them on MQTT (JSON), and what
 * the gateway takes of each: the DevEUI, the network server's time, the frame counter and port, the
 * frame's bytes and the codec's decoded object. Only those fields are checked; the rest (the radio
 * metadata of every network gateway that heard the frame, ids, …) is let through unread. Pure.
 *
 * - ChirpStack v4 (JSON marshaler): topic `application/{applicationId}/device/{devEui}/event/up`,
 *   `{ deduplicationId, time, deviceInfo: { devEui, … }, fCnt, fPort, data (base64), object, rxInfo, … }`.
 * - The Things Stack v3: topic `v3/{app}@{tenant}/devices/{deviceId}/up`,
 *   `{ end_device_ids: { device_id, dev_eui, … }, received_at, uplink_message: { f_cnt, f_port,
 *   frm_payload (base64), decoded_payload, rx_metadata, received_at, … } }`. It leaves out a field
 *   whose value is 0 or empty (so the first frame after a join has no `f_cnt`).
 */
import { z } from 'zod';

export const CHIRPSTACK_UP = /^application\/([^/]+)\/device\/([0-9A-Fa-f]{16})\/event\/up$/;
export const THINGS_STACK_UP = /^v3\/([^/]+)\/devices\/([^/]+)\/up$/;

const eui = z.string().regex(/^[0-9A-Fa-f]{16}$/, 'a DevEUI of 16 hexadecimal digits');
const counter = z.number().int().min(0).max(4_294_967_295);
const port = z.number().int().min(0).max(255);
const base64 = z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/, 'base64');
const time = z.string().refine((s) => Number.isFinite(Date.parse(s)), 'a time (RFC 3339)');
const decoded = z.record(z.string(), z.unknown());

export const chirpstackUplinkSchema = z.looseObject({
  deduplicationId: z.string().optional(),
  time: time.optional(),
  deviceInfo: z.looseObject({ devEui: eui, deviceName: z.string().optional() }),
  fCnt: counter.optional(),
  fPort: port.optional(),
  data: base64.optional(),
  object: decoded.optional(),
  rxInfo: z.array(z.unknown()).optional(),
});

export const thingsStackUplinkSchema = z.looseObject({
  end_device_ids: z.looseObject({ device_id: z.string(), dev_eui: eui.optional() }),
  received_at: time.optional(),
  uplink_message: z.looseObject({
    f_cnt: counter.optional(),
    f_port: port.optional(),
    frm_payload: base64.optional(),
    decoded_payload: decoded.optional(),
    rx_metadata: z.array(z.unknown()).optional(),
    received_at: time.optional(),
  }),
});

export type ChirpstackUplink = z.infer<typeof chirpstackUplinkSchema>;
export type ThingsStackUplink = z.infer<typeof thingsStackUplinkSchema>;

/** One uplink, whichever network server sent it. */
export interface Uplink {
  server: 'ChirpStack' | 'The Things Stack';
  devEui: string;
  /** The network server's time of the frame (epoch ms), when it gave one. */
  time: number | undefined;
  fCnt: number;
  fPort: number | undefined;
  frame: Uint8Array;
  object: Record<string, unknown> | undefined;
}

export const fromChirpstack = (u: ChirpstackUplink): Uplink => ({
  server: 'ChirpStack',
  devEui: u.deviceInfo.devEui.toLowerCase(),
  time: u.time === undefined ? undefined : Date.parse(u.time),
  fCnt: u.fCnt ?? 0,
  fPort: u.fPort,
  frame: Buffer.from(u.data ?? '', 'base64'),
  object: u.object,
});

export const fromThingsStack = (u: ThingsStackUplink, devEui: string): Uplink => {
  const m = u.uplink_message;
  const at = m.received_at ?? u.received_at;
  return {
    server: 'The Things Stack',
    devEui,
    time: at === undefined ? undefined : Date.parse(at),
    fCnt: m.f_cnt ?? 0,
    fPort: m.f_port,
    frame: Buffer.from(m.frm_payload ?? '', 'base64'),
    object: m.decoded_payload,
  };
};
