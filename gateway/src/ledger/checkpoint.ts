/**
 * Signed checkpoints in the C2SP formats (see `note.ts`, which reads them without Node), as the gateway
 * writes and checks them, synchronously with `node:crypto`: the note text, signing, verifying a note with
 * the gateway's own key, verifier keys. Pure apart from the crypto calls.
 */
import { createHash, createPublicKey, type KeyObject, sign, verify } from 'node:crypto';
import { fingerprintWords } from './fingerprint.ts';
import {
  ED25519,
  keyIdInput,
  type NoteCheckpoint,
  noteText,
  openNote,
  readCheckpoint,
  readVerifierKey,
  SIG_PREFIX,
  signaturesBy,
} from './note.ts';

export { type OpenedNote, openNote } from './note.ts';

export interface Checkpoint extends NoteCheckpoint {
  root: Buffer;
}

const asBuffer = (b: Uint8Array): Buffer => Buffer.from(b.buffer, b.byteOffset, b.byteLength);

/** The raw 32-byte Ed25519 public key of a key object (private or public). */
export function rawPublicKey(key: KeyObject): Buffer {
  const pub = key.type === 'public' ? key : createPublicKey(key);
  const der = pub.export({ format: 'der', type: 'spki' });
  return der.subarray(der.length - 32);
}

/** The fingerprint of a verifier key line, as `fingerprint.ts` defines it (synchronously, for the gateway). */
export const verifierKeyFingerprint = (vkey: string): string =>
  fingerprintWords(createHash('sha256').update(vkey.replace(/\s+/g, ''), 'utf8').digest());

/** A KeyObject for a raw 32-byte Ed25519 public key. */
export function publicKeyFromRaw(raw: Uint8Array): KeyObject {
  const prefix = Buffer.from('302a300506032b6570032100', 'hex');
  return createPublicKey({ key: Buffer.concat([prefix, raw]), format: 'der', type: 'spki' });
}

/** The 4-byte key id of an Ed25519 key under a name. */
export function keyId(name: string, rawPub: Uint8Array): Buffer {
  return createHash('sha256').update(keyIdInput(name, rawPub)).digest().subarray(0, 4);
}

/** The verifier key string of the signed-note format. */
export function verifierKey(name: string, rawPub: Uint8Array): string {
  return `${name}+${keyId(name, rawPub).toString('hex')}+${Buffer.concat([Buffer.from([ED25519]), rawPub]).toString('base64')}`;
}

/** Reads a verifier key string: its name and raw public key. */
export function parseVerifierKey(vkey: string): { name: string; publicKey: Buffer } {
  const k = readVerifierKey(vkey);
  const publicKey = asBuffer(k.publicKey);
  if (keyId(k.name, publicKey).toString('hex') !== k.id)
    throw new Error('the verifier key id does not match its name and key');
  return { name: k.name, publicKey };
}

/** The checkpoint's note text (what is signed). */
export const checkpointText = (c: NoteCheckpoint): string => noteText(c);

/** A signed note: the text, a blank line, and a signature line by `name` with `privateKey`. */
export function signNote(text: string, name: string, privateKey: KeyObject): string {
  if (!text.endsWith('\n')) throw new Error('a note text ends with a newline');
  const raw = rawPublicKey(privateKey);
  const sig = sign(null, Buffer.from(text), privateKey);
  return `${text}\n${SIG_PREFIX}${name} ${Buffer.concat([keyId(name, raw), sig]).toString('base64')}\n`;
}

/** Verifies a signed note against one key: returns its text when a signature by that key is valid. */
export function verifyNote(note: string, name: string, rawPub: Uint8Array): string {
  const opened = openNote(note);
  const key = publicKeyFromRaw(rawPub);
  for (const s of signaturesBy(opened, name, keyId(name, rawPub)))
    if (verify(null, Buffer.from(opened.text), key, s.signature)) return opened.text;
  throw new Error(`no valid signature by ${name} on the note`);
}

/** Reads a checkpoint's note text. */
export function parseCheckpoint(text: string): Checkpoint {
  const cp = readCheckpoint(text);
  return { ...cp, root: asBuffer(cp.root) };
}
