/**
 * Signed checkpoints in the C2SP formats, so standard transparency tooling can read them:
 * - tlog-checkpoint: the note text is `<origin>\n<tree size>\n<base64 root hash>\n`, optionally followed by
 *   extension lines;
 * - signed-note: the text, a blank line, then one line per signature, `— <key name> <base64(key id ||
 *   signature)>`, where the key id is the first 4 bytes of SHA-256(key name || 0x0A || 0x01 || public key)
 *   and the signature is Ed25519 over the text;
 * - a verifier key is written `<name>+<hex key id>+<base64(0x01 || public key)>`.
 * Ed25519 is `node:crypto`'s. Pure apart from the crypto calls.
 */
import { createHash, createPublicKey, type KeyObject, sign, verify } from 'node:crypto';

const ED25519 = 0x01;
const SIG_PREFIX = '\u2014 ';

export interface Checkpoint {
  origin: string;
  size: number;
  root: Buffer;
  /** Extension lines after the root, without their newlines. */
  extensions: string[];
}

/** The raw 32-byte Ed25519 public key of a key object (private or public). */
export function rawPublicKey(key: KeyObject): Buffer {
  const pub = key.type === 'public' ? key : createPublicKey(key);
  const der = pub.export({ format: 'der', type: 'spki' });
  return der.subarray(der.length - 32);
}

/** A KeyObject for a raw 32-byte Ed25519 public key. */
export function publicKeyFromRaw(raw: Buffer): KeyObject {
  const prefix = Buffer.from('302a300506032b6570032100', 'hex');
  return createPublicKey({ key: Buffer.concat([prefix, raw]), format: 'der', type: 'spki' });
}

/** The 4-byte key id of an Ed25519 key under a name. */
export function keyId(name: string, rawPub: Buffer): Buffer {
  return createHash('sha256')
    .update(name)
    .update(Buffer.from([0x0a, ED25519]))
    .update(rawPub)
    .digest()
    .subarray(0, 4);
}

/** The verifier key string of the signed-note format. */
export function verifierKey(name: string, rawPub: Buffer): string {
  return `${name}+${keyId(name, rawPub).toString('hex')}+${Buffer.concat([Buffer.from([ED25519]), rawPub]).toString('base64')}`;
}

/** Reads a verifier key string: its name and raw public key. */
export function parseVerifierKey(vkey: string): { name: string; publicKey: Buffer } {
  // The base64 key may itself contain '+': the name and the id are the first two fields.
  const m = /^([^+\s]+)\+([0-9a-fA-F]{8})\+([A-Za-z0-9+/=]+)$/.exec(vkey.trim());
  if (!m) throw new Error('a verifier key is <name>+<key id>+<base64 key>');
  const [, name, id, b64] = m as unknown as [string, string, string, string];
  const bytes = Buffer.from(b64, 'base64');
  if (bytes.length !== 33 || bytes[0] !== ED25519) throw new Error('not an Ed25519 verifier key');
  const publicKey = bytes.subarray(1);
  if (keyId(name, publicKey).toString('hex') !== id.toLowerCase())
    throw new Error('the verifier key id does not match its name and key');
  return { name, publicKey };
}

/** The checkpoint's note text (what is signed). */
export function checkpointText(c: Checkpoint): string {
  if (!c.origin || /[\n]/.test(c.origin)) throw new Error('the origin is one non-empty line');
  const ext = c.extensions.map((e) => `${e}\n`).join('');
  return `${c.origin}\n${c.size}\n${c.root.toString('base64')}\n${ext}`;
}

/** A signed note: the text, a blank line, and a signature line by `name` with `privateKey`. */
export function signNote(text: string, name: string, privateKey: KeyObject): string {
  if (!text.endsWith('\n')) throw new Error('a note text ends with a newline');
  const raw = rawPublicKey(privateKey);
  const sig = sign(null, Buffer.from(text), privateKey);
  return `${text}\n${SIG_PREFIX}${name} ${Buffer.concat([keyId(name, raw), sig]).toString('base64')}\n`;
}

export interface OpenedNote {
  text: string;
  signatures: Array<{ name: string; keyId: Buffer; signature: Buffer }>;
}

/** Splits a signed note into its text and signature lines (nothing is verified). */
export function openNote(note: string): OpenedNote {
  const cut = note.lastIndexOf('\n\n');
  if (cut < 0) throw new Error('a signed note has a blank line before its signatures');
  const text = note.slice(0, cut + 1);
  const signatures: OpenedNote['signatures'] = [];
  for (const line of note.slice(cut + 2).split('\n')) {
    if (line === '') continue;
    if (!line.startsWith(SIG_PREFIX)) throw new Error(`not a signature line: ${line.slice(0, 40)}`);
    const [name, b64] = line.slice(SIG_PREFIX.length).split(' ');
    const bytes = Buffer.from(b64 ?? '', 'base64');
    if (!name || bytes.length < 5) throw new Error('a signature line is "— <name> <base64>"');
    signatures.push({ name, keyId: bytes.subarray(0, 4), signature: bytes.subarray(4) });
  }
  return { text, signatures };
}

/** Verifies a signed note against one key: returns its text when a signature by that key is valid. */
export function verifyNote(note: string, name: string, rawPub: Buffer): string {
  const opened = openNote(note);
  const id = keyId(name, rawPub);
  const key = publicKeyFromRaw(rawPub);
  for (const s of opened.signatures)
    if (s.name === name && s.keyId.equals(id) && verify(null, Buffer.from(opened.text), key, s.signature))
      return opened.text;
  throw new Error(`no valid signature by ${name} on the note`);
}

/** Reads a checkpoint's note text. */
export function parseCheckpoint(text: string): Checkpoint {
  const lines = text.split('\n');
  if (lines.length < 4 || lines[lines.length - 1] !== '') throw new Error('a checkpoint has three lines');
  const [origin, size, root, ...rest] = lines.slice(0, -1) as [string, string, string, ...string[]];
  if (!/^\d+$/.test(size)) throw new Error('the checkpoint size is a decimal number');
  const rootBytes = Buffer.from(root, 'base64');
  if (rootBytes.length !== 32 || rootBytes.toString('base64') !== root)
    throw new Error('the checkpoint root is 32 bytes in base64');
  return { origin, size: Number(size), root: rootBytes, extensions: rest };
}
