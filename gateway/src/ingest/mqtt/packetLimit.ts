/**
 * The largest packet a connection may send, enforced by the packet parser as soon as it has read a
 * packet's length header: before any of its body is buffered, and before the client has logged in. A
 * client announcing more (a 150 MB status, a 250 MB PUBLISH streamed as zeros) is disconnected at once,
 * holding no more memory than one socket read.
 */
import type { Client } from 'aedes';

/** mqtt-packet's Parser, as far as the limit needs it (see node_modules/mqtt-packet/parser.js). */
interface PacketParser {
  packet: { length: number; cmd?: string };
  _parseLength(): boolean;
  _emitError(err: Error): void;
}

/** Installs the limit on one connection's parser; `refused` hears of each packet refused. */
export function limitPacketSize(client: Client, maxBytes: number, refused: (bytes: number) => void): void {
  const parser = (client as unknown as { _parser: PacketParser })._parser;
  const parseLength = Object.getPrototypeOf(parser)._parseLength as PacketParser['_parseLength'];
  parser._parseLength = function limitedParseLength(this: PacketParser): boolean {
    const done = parseLength.call(this);
    if (done && this.packet.length > maxBytes) {
      refused(this.packet.length);
      this._emitError(
        new Error(
          `${this.packet.cmd ?? 'packet'} of ${this.packet.length} bytes exceeds mqtt.maxPacketBytes (${maxBytes})`,
        ),
      );
      return false;
    }
    return done;
  };
}
