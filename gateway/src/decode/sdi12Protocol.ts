/**
 * The SDI-12 v1.4 responses the gateway reads, parsed: the answer to a start-measurement command
 * (`aM!` → `atttn`, `aC!` → `atttnn`), the service request (`a`), and the data lines of `aD0!`…`aD9!`
 * (`a+1.23-4.5`), with the 16-bit CRC that `aMC!` and `aCC!` ask the sensor to append (three characters
 * before `<CR><LF>`). The CRC is the specification's (CRC-16 with the reflected polynomial 0xA001, from
 * zero, over the address and the values), each character `0x40` or'ed with six bits of it. Errors are in
 * words. Pure.
 */

/** The measurement commands a profile may use (`M`, `MC`, `C`, `CC`, with an optional digit). */
export const isConcurrent = (command: string): boolean => command.startsWith('C');
export const wantsCrc = (command: string): boolean => /^(MC|CC)/.test(command);

/** The specification's CRC of `text` (the response from its address to its last value). */
export function sdi12Crc(text: string): number {
  let crc = 0;
  for (let i = 0; i < text.length; i++) {
    crc ^= text.charCodeAt(i) & 0xff;
    for (let b = 0; b < 8; b++) crc = crc & 1 ? (crc >>> 1) ^ 0xa001 : crc >>> 1;
  }
  return crc;
}

/** The CRC as the three characters a sensor appends. */
export function encodeCrc(crc: number): string {
  return String.fromCharCode(0x40 | (crc >>> 12), 0x40 | ((crc >>> 6) & 0x3f), 0x40 | (crc & 0x3f));
}

/** A data line with its CRC appended (what a sensor sends after `aMC!`). */
export const withCrc = (text: string): string => text + encodeCrc(sdi12Crc(text));

export type Parsed<T> = ({ ok: true } & T) | { ok: false; error: string };

const shown = (line: string) => JSON.stringify(line.length > 60 ? `${line.slice(0, 60)}…` : line);

const fromOther = (line: string, address: string): string | undefined =>
  line[0] !== address ? `the answer ${shown(line)} is not from the sensor at address ${address}` : undefined;

/**
 * The answer to a start-measurement command: `atttn` (`aM!`, up to 9 values) or `atttnn` (`aC!`, up to
 * 99): the seconds until the values are ready and how many there are.
 */
export function parseMeasureAnswer(
  line: string,
  address: string,
  command: string,
): Parsed<{ waitSeconds: number; count: number }> {
  const other = fromOther(line, address);
  if (other) return { ok: false, error: other };
  const digits = isConcurrent(command) ? 2 : 1;
  const m = new RegExp(`^.(\\d{3})(\\d{${digits}})$`).exec(line);
  if (!m)
    return {
      ok: false,
      error: `the answer ${shown(line)} to the measurement command is not its wait and count of values`,
    };
  return { ok: true, waitSeconds: Number(m[1]), count: Number(m[2]) };
}

/** One value of a data line: a sign, up to 7 digits, an optional decimal point (the specification's form). */
const VALUE = /[+-](\d+\.?\d*|\.\d+)/y;

/**
 * A data line of `aD0!`…`aD9!`: the address and its values. With `crc`, its last three characters are
 * the CRC of the rest, and a line whose CRC does not match is damaged.
 */
export function parseDataLine(line: string, address: string, crc: boolean): Parsed<{ values: number[] }> {
  const other = fromOther(line, address);
  if (other) return { ok: false, error: other };
  let body = line;
  if (crc) {
    if (line.length < 4)
      return { ok: false, error: `the answer ${shown(line)} has no check characters (CRC)` };
    body = line.slice(0, -3);
    const want = line.slice(-3);
    const got = encodeCrc(sdi12Crc(body));
    if (want !== got)
      return {
        ok: false,
        error: `the answer ${shown(line)} was damaged on the way: its check characters (CRC) do not match`,
      };
  }
  const values: number[] = [];
  let at = 1;
  while (at < body.length) {
    VALUE.lastIndex = at;
    const m = VALUE.exec(body);
    if (!m || m[0].replace(/[+.-]/g, '').length > 7)
      return { ok: false, error: `the answer ${shown(line)} has something other than numbers in it` };
    values.push(Number(m[0]));
    at = VALUE.lastIndex;
  }
  return { ok: true, values };
}

/** A service request: the sensor's address alone, sent when its values are ready. */
export const isServiceRequest = (line: string, address: string): boolean => line === address;
