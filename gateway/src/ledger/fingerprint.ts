/**
 * The fingerprint of the town's public key: SHA-256 of its verifier key line (`<name>+<id>+<key>`, UTF-8,
 * as GET /api/evidence/key gives it), its first 16 hex digits in groups of four ("3fa9 4c0b 21e7 9d55").
 * Short enough to read aloud or print, and any change to the line (its name, its id, its key) changes it.
 * The dashboard, the printed report, `npm run verify` and verify.html all show it, so a reader compares it
 * with the one the town publishes. No Node API: the verifier hashes with WebCrypto (`webcrypto.ts`).
 */
import { toHex, utf8 } from './bytes.ts';
import { sha256 } from './webcrypto.ts';

/** How many hex digits of the digest a fingerprint shows. */
export const FINGERPRINT_DIGITS = 16;

/** A SHA-256 digest as a fingerprint: its first 16 hex digits, four by four. */
export function fingerprintWords(digest: Uint8Array): string {
  const hex = toHex(digest).slice(0, FINGERPRINT_DIGITS);
  return hex.replace(/(.{4})(?=.)/g, '$1 ');
}

/** The fingerprint of a verifier key line (spaces and line breaks around and inside it ignored). */
export async function keyFingerprint(verifierKey: string): Promise<string> {
  return fingerprintWords(await sha256(utf8(verifierKey.replace(/\s+/g, ''))));
}
