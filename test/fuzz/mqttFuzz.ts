/**
 * Fuzzing of whole MQTT packets against the running embedded broker, over raw sockets: sessions that log
 * in (or not, or with a mutated CONNECT) and then send bursts of valid, mutated and random packets. Every
 * session must end in a known outcome (a CONNACK code, or the connection closed), every well-formed QoS 1
 * PUBLISH of a logged-in session must be acknowledged or its connection closed, and the gateway must stay
 * up (the caller checks its memory and that a device still gets through).
 * Used by the suite (2,000 packets) and by `npm run fuzz`.
 */
import { type Socket, connect as tcp } from 'node:net';
import mqttPacket from 'mqtt-packet';
import { nearValidPayload, randomPayload, rng } from './decodeFuzz.ts';

export interface FuzzLogin {
  clientId: string;
  username: string;
  password: string;
  siteId: string;
  deviceId: string;
}

export interface MqttFuzzOptions {
  port: number;
  packets: number;
  seed: number;
  logins: FuzzLogin[];
  /** Sessions at once (default 8). */
  parallel?: number;
}

export interface MqttFuzzResult {
  packets: number;
  sessions: number;
  /** CONNACK return codes seen, and sessions closed before any CONNACK. */
  connacks: Record<string, number>;
  closedBeforeConnack: number;
  qos1Sent: number;
  pubacks: number;
  closedWithPublishPending: number;
  failures: string[];
}

const gen = (p: mqttPacket.Packet) => mqttPacket.generate(p);

/** Flips, drops or inserts a few bytes. */
function mutate(r: () => number, b: Buffer): Buffer {
  const bytes = [...b];
  for (let k = 0; k < 1 + Math.floor(r() * 4); k++) {
    const i = Math.floor(r() * bytes.length);
    const op = Math.floor(r() * 3);
    if (op === 0) bytes[i] = Math.floor(r() * 256);
    else if (op === 1) bytes.splice(i, 1);
    else bytes.splice(i, 0, Math.floor(r() * 256));
  }
  return Buffer.from(bytes);
}

const oversize = () => Buffer.from([0x30, 0xff, 0xff, 0xff, 0x7f]);

/** The gateway's default packet limit (ingest.maxPayloadBytes 4096 + 4096), less the fixed header. */
const MAX_PACKET = 8192;

interface Burst {
  bytes: Buffer;
  /** Message ids of the well-formed QoS 1 publishes read before anything that ends the session. */
  expectAck: number[];
  count: number;
}

/** Packets that do not end a session: a burst of only these must be answered in full. */
const KEEPS = [0, 1, 2, 3, 4, 9, 10, 11];

function burst(r: () => number, me: FuzzLogin, other: FuzzLogin, n: number, nextId: () => number): Burst {
  // Half the bursts hold only well-formed packets that keep the session; the others may hold anything.
  // A packet that ends the session (malformed, refused, over the limit) ends it for the whole socket
  // read it came in, so a burst holding one expects no acknowledgement at all: a closed connection.
  const keep = r() < 0.5;
  const parts: Buffer[] = [];
  const expectAck: number[] = [];
  let ended = false;
  const telemetry = `sites/${me.siteId}/devices/${me.deviceId}/telemetry`;
  for (let i = 0; i < n; i++) {
    const pick = keep ? KEEPS[Math.floor(r() * KEEPS.length)]! : Math.floor(r() * 14);
    const payload = r() < 0.5 ? JSON.stringify(nearValidPayload(r)) : randomPayload(r);
    const id = nextId();
    switch (pick) {
      case 0:
      case 1:
      case 2:
        parts.push(
          gen({
            cmd: 'publish',
            topic: telemetry,
            payload,
            qos: 1,
            messageId: id,
            retain: false,
            dup: false,
          }),
        );
        if (!ended) expectAck.push(id);
        break;
      case 3:
        parts.push(gen({ cmd: 'publish', topic: telemetry, payload, qos: 0, retain: false, dup: false }));
        break;
      case 4: {
        const status = r() < 0.5 ? (r() < 0.5 ? 'online' : 'offline') : payload;
        const topic = `sites/${me.siteId}/devices/${me.deviceId}/status`;
        parts.push(
          gen({
            cmd: 'publish',
            topic,
            payload: status,
            qos: 1,
            messageId: id,
            retain: r() < 0.3,
            dup: false,
          }),
        );
        if (!ended) expectAck.push(id);
        break;
      }
      case 5: {
        // Another device's topic: refused, the connection closed.
        const topic = `sites/${other.siteId}/devices/${other.deviceId}/telemetry`;
        parts.push(gen({ cmd: 'publish', topic, payload, qos: 1, messageId: id, retain: false, dup: false }));
        if (other.deviceId !== me.deviceId) ended = true;
        else if (!ended) expectAck.push(id);
        break;
      }
      case 6:
        parts.push(
          mutate(
            r,
            gen({
              cmd: 'publish',
              topic: telemetry,
              payload,
              qos: 1,
              messageId: id,
              retain: false,
              dup: false,
            }),
          ),
        );
        ended = true;
        break;
      case 7:
        parts.push(
          Buffer.from(Array.from({ length: 1 + Math.floor(r() * 40) }, () => Math.floor(r() * 256))),
        );
        ended = true;
        break;
      case 8:
        parts.push(oversize());
        ended = true;
        break;
      case 9: {
        const topic =
          r() < 0.5 ? `sites/${me.siteId}/devices/${me.deviceId}/#` : r() < 0.5 ? '#' : 'alerts/+/x';
        parts.push(
          gen({ cmd: 'subscribe', messageId: id, subscriptions: [{ topic, qos: r() < 0.5 ? 0 : 1 }] }),
        );
        break;
      }
      case 10:
        parts.push(gen({ cmd: 'pingreq' }));
        break;
      case 11:
        parts.push(gen({ cmd: 'puback', messageId: Math.floor(r() * 65535) + 1 }));
        break;
      case 12:
        if (r() < 0.3) {
          parts.push(gen({ cmd: 'disconnect' }));
          ended = true;
        } else parts.push(gen({ cmd: 'unsubscribe', messageId: id, unsubscriptions: ['#'] }));
        break;
      default: {
        // Large packets, some over the 8 KB limit (the connection closes), some under (a rejection).
        const topic = r() < 0.5 ? telemetry : `${telemetry}/${'x'.repeat(Math.floor(r() * 100))}`;
        const big = gen({
          cmd: 'publish',
          topic,
          payload: Buffer.alloc(Math.floor(r() * 9000), 0x7b),
          qos: 1,
          messageId: id,
          retain: false,
          dup: false,
        });
        parts.push(big);
        if (big.length > MAX_PACKET) ended = true;
        else if (!ended) expectAck.push(id);
        break;
      }
    }
  }
  return { bytes: Buffer.concat(parts), expectAck: ended ? [] : expectAck, count: n };
}

/** One session: connect (or not), send a burst, wait for the answers; adds its outcome to `out`. */
async function session(
  r: () => number,
  o: MqttFuzzOptions,
  out: MqttFuzzResult,
  n: number,
  nextId: () => number,
): Promise<void> {
  const me = o.logins[Math.floor(r() * o.logins.length)]!;
  const other = o.logins[Math.floor(r() * o.logins.length)]!;
  const sock: Socket = tcp({
    port: o.port,
    host: '127.0.0.1',
    localAddress: `127.0.0.${2 + Math.floor(r() * 250)}`,
  });
  sock.on('error', () => {});
  const parser = mqttPacket.parser();
  let connack: number | undefined;
  const acked = new Set<number>();
  let closed = false;
  let lastActivity = Date.now();
  parser.on('packet', (p) => {
    lastActivity = Date.now();
    if (p.cmd === 'connack') connack = p.returnCode ?? 0;
    if (p.cmd === 'puback' && p.messageId !== undefined) acked.add(p.messageId);
  });
  parser.on('error', () => {});
  sock.on('data', (d) => parser.parse(d));
  const closedP = new Promise<void>((res) =>
    sock.once('close', () => {
      closed = true;
      res();
    }),
  );
  await new Promise<void>((res) => {
    sock.once('connect', () => res());
    sock.once('close', () => res());
  });
  if (closed) {
    out.closedBeforeConnack++;
    return;
  }
  const mode = r();
  const connect = gen({
    cmd: 'connect',
    protocolId: 'MQTT',
    protocolVersion: 4,
    clean: r() < 0.8,
    keepalive: 30,
    clientId: mode < 0.9 ? me.clientId : other.clientId,
    username: me.username,
    password: Buffer.from(mode < 0.85 ? me.password : 'wrong'),
  });
  const loginKind = mode < 0.75 ? 'valid' : mode < 0.85 ? 'mutated' : mode < 0.95 ? 'other' : 'none';
  if (loginKind !== 'none') sock.write(loginKind === 'mutated' ? mutate(r, connect) : connect);
  for (const end = Date.now() + 3000; connack === undefined && !closed && Date.now() < end; )
    await new Promise((s) => setTimeout(s, 5));
  const b = burst(r, me, other, n, nextId);
  out.packets += b.count + 1;
  if (!closed) sock.write(b.bytes);
  // Answers: until the connection closes, every expected PUBACK arrived, or nothing happened for 300 ms.
  lastActivity = Date.now();
  const loggedIn = connack === 0;
  const done = () => closed || (loggedIn && b.expectAck.every((id) => acked.has(id)));
  while (!done() && Date.now() - lastActivity < (loggedIn ? 3000 : 300))
    await new Promise((s) => setTimeout(s, 5));
  if (connack === undefined) out.closedBeforeConnack += closed ? 1 : 0;
  else out.connacks[String(connack)] = (out.connacks[String(connack)] ?? 0) + 1;
  if (connack === undefined && !closed && loginKind === 'valid')
    out.failures.push(`a valid CONNECT got neither a CONNACK nor a close (${me.username})`);
  if (loggedIn) {
    out.qos1Sent += b.expectAck.length;
    out.pubacks += b.expectAck.filter((id) => acked.has(id)).length;
    const missing = b.expectAck.filter((id) => !acked.has(id));
    if (missing.length && !closed)
      out.failures.push(
        `${missing.length} well-formed QoS 1 publishes neither acknowledged nor refused (${me.username})`,
      );
    if (missing.length && closed) out.closedWithPublishPending++;
  }
  sock.end();
  sock.destroy();
  await closedP;
}

export async function fuzzBroker(o: MqttFuzzOptions): Promise<MqttFuzzResult> {
  const r = rng(o.seed);
  const out: MqttFuzzResult = {
    packets: 0,
    sessions: 0,
    connacks: {},
    closedBeforeConnack: 0,
    qos1Sent: 0,
    pubacks: 0,
    closedWithPublishPending: 0,
    failures: [],
  };
  let id = 0;
  const nextId = () => (id = (id % 65534) + 1);
  const lanes = Array.from({ length: o.parallel ?? 8 }, async () => {
    while (out.packets < o.packets) {
      out.sessions++;
      await session(r, o, out, 1 + Math.floor(r() * 30), nextId);
    }
  });
  await Promise.all(lanes);
  return out;
}
