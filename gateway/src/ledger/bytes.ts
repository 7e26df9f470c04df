/**
 * Bytes as `Uint8Array`, the same in Node and in a browser: UTF-8, base64 (standard alphabet, padded) and
 * hex, over `TextEncoder` and `atob`/`btoa` (which both have) rather than Node's `Buffer`, so that the
 * report verifier runs in both. Decoding is strict: a string that is not the canonical encoding of some
 * bytes is refused, as the round trip `Buffer.from(s, 'base64').toString('base64') === s` refuses it. Pure.
 */

const encoder = new TextEncoder();

/** The UTF-8 bytes of a string. */
export const utf8 = (s: string): Uint8Array => encoder.encode(s);

/** Standard base64 with padding, as the checkpoints, leaves and proofs are written. */
export function toBase64(bytes: Uint8Array): string {
  let bin = '';
  // In slices: String.fromCharCode takes its arguments on the stack.
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin);
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** The bytes of a base64 string, or undefined when it is not canonical padded base64. */
export function fromBase64(s: string): Uint8Array | undefined {
  if (!BASE64.test(s)) return undefined;
  const bin = atob(s);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  // The bits after the last byte must be zero, or two strings would name the same bytes.
  return toBase64(out) === s ? out : undefined;
}

/** Lower-case hex. */
export const toHex = (bytes: Uint8Array): string =>
  Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');

/** Byte strings joined. */
export function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Whether two byte strings are the same. */
export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
