/**
 * MQTT 5 clients on the embedded broker. aedes 1.2 speaks MQTT 3.1/3.1.1 only: it answers a v5 CONNECT
 * with "unacceptable protocol version". Its packet parser (mqtt-packet) does read v5 packets once it has
 * read a v5 CONNECT, and mqtt-packet's writer encodes v5 when asked; this lets a v5 client in and answers
 * it in v5:
 * - the CONNECT goes to aedes as 3.1.1 (`preConnect`), the connection is remembered as v5, and its parser
 *   keeps reading v5;
 * - every packet aedes writes to that connection is encoded as v5: the CONNACK with the reason code of
 *   its 3.1.1 return code and the gateway's Maximum Packet Size (mqtt.maxPacketBytes), a PUBACK with
 *   reason code 0x00 (Success), or for a publish the gateway refused as oversize (`tooLarge`: recorded
 *   and counted before that PUBACK, never stored) 0x83 (Implementation specific error: "the PUBLISH is
 *   valid but the receiver is not willing to accept it") with the Reason String "Packet too large: …".
 *   Not 0x95 (Packet too large): MQTT 5.0 allows that code in CONNACK and DISCONNECT only, not in a
 *   PUBACK (3.4.2.1), and mqtt.js 5 takes such a PUBACK for a malformed packet, closes the connection
 *   and sends the publish again, the very loop this ends (Mosquitto 2.0's message_size_limit sends 0x95,
 *   and an mqtt.js v5 client of it loops so);
 * - an UNSUBACK with a reason code per topic filter of its UNSUBSCRIBE.
 * What v5 adds beyond that is not supported: a v5 session behaves as a 3.1.1 one with the same clean
 * flag (no session expiry interval), topic aliases are not accepted (the CONNACK's Topic Alias Maximum is
 * absent, i.e. 0), user properties and request/response are not used, the client's own maximum packet
 * size is not checked.
 */
import type { Client, ConnectPacket } from 'aedes';
import mqttPacket from 'mqtt-packet';

/** The PUBACK reason code of a publish refused as oversize (MQTT 5.0, 3.4.2.1): Implementation specific error. */
export const REFUSED_TOO_LARGE = 0x83;
/** A 3.1.1 CONNACK return code as its MQTT 5 reason code. */
const CONNACK_REASON: Record<number, number> = { 0: 0, 1: 0x84, 2: 0x85, 3: 0x88, 4: 0x86, 5: 0x87 };

interface V5Connection {
  /** Publishes (by packet id) refused as oversize, with why in words: their PUBACK says so. */
  tooLarge: Map<number, string>;
  /** UNSUBSCRIBEs waiting for their UNSUBACK: how many filters each named. */
  unsubscribes: Map<number, number>;
  /** The client asked for an id to be assigned (aedes assigns one): the CONNACK tells it. */
  assignId: boolean;
  client: Client;
  /** The Maximum Packet Size told in the CONNACK (mqtt.maxPacketBytes). */
  maxPacketBytes: number;
}

type Packet = Record<string, unknown> & { cmd: string; messageId?: number };
type Write = (packet: Packet, stream: object, opts?: Record<string, unknown>) => boolean;

const connections = new WeakMap<object, V5Connection>();
let installed = false;

/** Routes mqtt-packet's writer through the v5 encoding for the connections that asked for it. */
function install(): void {
  if (installed) return;
  installed = true;
  const codec = mqttPacket as unknown as { writeToStream: Write & { cacheNumbers: boolean } };
  const write = codec.writeToStream;
  const v5write = ((packet, stream, opts) => {
    const conn = connections.get(stream);
    if (!conn) return write(packet, stream, opts);
    return write(adapt(packet, conn), stream, { ...opts, protocolVersion: 5 });
  }) as Write & { cacheNumbers: boolean };
  Object.defineProperty(v5write, 'cacheNumbers', {
    get: () => write.cacheNumbers,
    set: (v: boolean) => {
      write.cacheNumbers = v;
    },
  });
  codec.writeToStream = v5write;
}

function adapt(packet: Packet, conn: V5Connection): Packet {
  switch (packet.cmd) {
    case 'connack': {
      const reasonCode = CONNACK_REASON[packet.returnCode as number] ?? 0x80;
      return {
        cmd: 'connack',
        reasonCode,
        sessionPresent: reasonCode === 0 && packet.sessionPresent === true,
        properties: {
          maximumPacketSize: conn.maxPacketBytes,
          ...(conn.assignId && conn.client.id ? { assignedClientIdentifier: conn.client.id } : {}),
        },
      };
    }
    case 'puback':
    case 'pubrec':
    case 'pubrel':
    case 'pubcomp': {
      const id = packet.messageId ?? -1;
      const why = packet.cmd === 'puback' ? conn.tooLarge.get(id) : undefined;
      if (why === undefined) return { ...packet, reasonCode: 0 };
      conn.tooLarge.delete(id);
      return {
        ...packet,
        reasonCode: REFUSED_TOO_LARGE,
        properties: { reasonString: `Packet too large: ${why}; refused and recorded, not stored` },
      };
    }
    case 'unsuback': {
      const id = packet.messageId ?? -1;
      const n = conn.unsubscribes.get(id) ?? 1;
      conn.unsubscribes.delete(id);
      return { ...packet, granted: Array(n).fill(0) };
    }
    default:
      return packet;
  }
}

/**
 * Installs v5 on the broker's connections: call from aedes's `preConnect`. A v5 CONNECT is let through
 * as 3.1.1, the connection's later packets are read and written as v5. `maxBytes`: mqtt.maxPacketBytes.
 */
export function acceptV5(client: Client, packet: ConnectPacket, maxBytes: number): void {
  if (packet.protocolVersion !== 5) return;
  install();
  const parser = (
    client as unknown as {
      _parser: { settings: unknown; on(event: 'packet', fn: (p: Packet) => void): void };
    }
  )._parser;
  // The parser reads by the CONNECT it parsed (its `settings`): a copy keeps it at v5.
  parser.settings = { ...packet };
  const conn: V5Connection = {
    tooLarge: new Map(),
    unsubscribes: new Map(),
    assignId: !packet.clientId,
    client,
    maxPacketBytes: maxBytes,
  };
  parser.on('packet', (p) => {
    if (p.cmd === 'unsubscribe' && p.messageId !== undefined && Array.isArray(p.unsubscriptions))
      conn.unsubscribes.set(p.messageId, p.unsubscriptions.length);
  });
  connections.set(client.conn, conn);
  packet.protocolVersion = 4;
}

/** Whether a client connected with MQTT 5. */
export const isV5 = (client: Client): boolean => connections.has(client.conn);

/** A publish refused as oversize (`why`, in words): its PUBACK (sent next) says so to a v5 client. */
export function tooLarge(client: Client, messageId: number | undefined, why: string): void {
  if (messageId !== undefined) connections.get(client.conn)?.tooLarge.set(messageId, why.slice(0, 200));
}
