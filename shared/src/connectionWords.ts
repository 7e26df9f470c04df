/**
 * How a device connects, in a sentence people read: "Modbus RTU, unit 3 on /dev/ttyUSB0, every 60 s",
 * "LoRaWAN through ChirpStack".
 */
import { TRANSPORT_WORDS } from './transportWords.ts';

/** A poll interval in words: "60 s", "5 min", "2 h". */
export function everyText(seconds: number): string {
  if (seconds % 3600 === 0) return `${seconds / 3600} h`;
  if (seconds % 60 === 0 && seconds >= 120) return `${seconds / 60} min`;
  return `${seconds} s`;
}

/** How a device connects, in words, from its settings as the API shows them. */
export function connectionText(d: {
  transport?: string | undefined;
  modbus?: { bus: string; unitId: number; pollSeconds: number } | undefined;
  sdi12?: { port: string; address: string; pollSeconds: number } | undefined;
  /** LoRaWAN: the network server(s) the gateway takes uplinks from. */
  networkServer?: string | undefined;
}): string {
  switch (d.transport) {
    case 'lorawan':
      return d.networkServer ? `LoRaWAN through ${d.networkServer}` : 'LoRaWAN';
    case 'modbus':
      return d.modbus
        ? `Modbus RTU, unit ${d.modbus.unitId} on ${d.modbus.bus}, every ${everyText(d.modbus.pollSeconds)}`
        : 'Modbus RTU';
    case 'sdi12':
      return d.sdi12
        ? `SDI-12, address ${d.sdi12.address} on ${d.sdi12.port}, every ${everyText(d.sdi12.pollSeconds)}`
        : 'SDI-12';
    default:
      return TRANSPORT_WORDS.json;
  }
}
