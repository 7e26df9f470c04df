/**
 * Logins on their own connections, for bursts: an MQTT 3.1.1 CONNECT on a raw socket and a sign-in on an
 * HTTP connection of its own, each telling when it is on the wire (so a later one is sent after it) and
 * what the gateway answered.
 */
import { request } from 'node:http';
import { connect as tcpConnect } from 'node:net';
import mqttPacket from 'mqtt-packet';

export interface RawAttempt {
  /** Resolves once the CONNECT is written to the socket. */
  sent: Promise<void>;
  /** The CONNACK return code, or 'closed' when the connection closed first. */
  connack: Promise<number | 'closed'>;
}

/** An MQTT 3.1.1 CONNECT on its own socket. */
export function rawConnect(
  port: number,
  username: string,
  password: string,
  clientId = 'maple-ridge/rg-1',
): RawAttempt {
  const sock = tcpConnect({ port, host: '127.0.0.1' });
  const parser = mqttPacket.parser({ protocolVersion: 4 });
  const packet = mqttPacket.generate({
    cmd: 'connect',
    protocolId: 'MQTT',
    protocolVersion: 4,
    clientId,
    clean: true,
    keepalive: 30,
    username,
    password: Buffer.from(password),
  });
  const sent = new Promise<void>((resolve, reject) => {
    sock.once('connect', () => sock.write(packet, (e) => (e ? reject(e) : resolve())));
    sock.once('error', reject);
  });
  const connack = new Promise<number | 'closed'>((resolve) => {
    parser.on('packet', (p) => {
      if (p.cmd === 'connack') {
        resolve((p as mqttPacket.IConnackPacket).returnCode ?? 0);
        sock.destroy();
      }
    });
    sock.on('data', (d) => parser.parse(d));
    sock.once('close', () => resolve('closed'));
  });
  sent.catch(() => undefined);
  return { sent, connack };
}

export interface HttpAttempt {
  sent: Promise<void>;
  status: Promise<number>;
}

/** A sign-in on its own connection. */
export function rawSignIn(url: string, email: string, password: string): HttpAttempt {
  const body = JSON.stringify({ email, password });
  const req = request(`${url}/api/auth/login`, {
    method: 'POST',
    agent: false,
    headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
  });
  const sent = new Promise<void>((resolve, reject) => {
    req.once('finish', resolve);
    req.once('error', reject);
  });
  const status = new Promise<number>((resolve, reject) => {
    req.once('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.once('error', reject);
  });
  req.end(body);
  sent.catch(() => undefined);
  return { sent, status };
}
