/**
 * The largest packet a connection may send, enforced by the packet parser as soon as it has read a
 * packet's length header: before any of its body is buffered. A client announcing more (a 150 MB status,
 * a 250 MB PUBLISH streamed as zeros) is disconnected at once, holding no more memory than one socket read.
 *
 * Two bounds: before its login is accepted a connection may send packets up to `beforeLogin` (a CONNECT
 * and what a client sends right behind it: ingest.maxPayloadBytes + 4096), so unauthenticated connections
 * hold little; once logged in, up to `loggedIn` (mqtt.maxPacketBytes, 1 MiB by default), so that a
 * publish over ingest.maxPayloadBytes but under it is read whole, refused as oversize with its device,
 * and acknowledged (embedded.ts) instead of closing the connection and being sent again forever.
 */
import type { Client } from 'aedes';

/** mqtt-packet's Parser, as far as the limit needs it (see node_modules/mqtt-packet/parser.js). */
interface PacketParser {
  packet: { length: number; cmd?: string };
  _parseLength(): boolean;
  _emitError(err: Error): void;
}

export interface PacketLimits {
  beforeLogin: number;
  loggedIn: number;
}

/**
 * Installs the limit on one connection's parser; `loggedIn()` tells whether the connection's login was
 * accepted; `refused` hears of each packet refused.
 */
export function limitPacketSize(
  client: Client,
  limits: PacketLimits,
  loggedIn: () => boolean,
  refused: (bytes: number, max: number) => void,
): void {
  const parser = (client as unknown as { _parser: PacketParser })._parser;
  const parseLength = Object.getPrototypeOf(parser)._parseLength as PacketParser['_parseLength'];
  parser._parseLength = function limitedParseLength(this: PacketParser): boolean {
    const done = parseLength.call(this);
    if (!done) return done;
    const max = loggedIn() ? limits.loggedIn : Math.min(limits.beforeLogin, limits.loggedIn);
    if (this.packet.length > max) {
      refused(this.packet.length, max);
      this._emitError(
        new Error(
          `${this.packet.cmd ?? 'packet'} of ${this.packet.length} bytes exceeds ${max === limits.loggedIn ? 'mqtt.maxPacketBytes' : 'the limit before login'} (${max})`,
        ),
      );
      return false;
    }
    return done;
  };
}
