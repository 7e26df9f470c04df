/**
 * Signed checkpoints in the C2SP formats, read and checked without Node: the part of `checkpoint.ts`
 * that the report verifier needs, in Node and in a browser.
 * - tlog-checkpoint: the note text is `<origin>\n<tree size>\n<base64 root hash>\n`, optionally followed by
 *   extension lines;
 * - signed-note: the text, a blank line, then one line per signature, `— <key name> <base64(key id ||
 *   signature)>`, where the key id is the first 4 bytes of SHA-256(key name || 0x0A || 0x01 || public key)
 *   and the signature is Ed25519 over the text;
 * - a verifier key is written `<name>+<hex key id>+<base64(0x01 || public key)>`.
 * Parsing is pure; the key id and signature checks are WebCrypto's (`webcrypto.ts`), asynchronous.
 */
import { bytesEqual, concat, fromBase64, toBase64, toHex, utf8 } from './bytes.ts';
import { ed25519Verifies, sha256 } from './webcrypto.ts';

export const ED25519 = 0x01;
export const SIG_PREFIX = '\u2014 ';

/** A checkpoint as its note text says it. */
export interface NoteCheckpoint {
  origin: string;
  size: number;
  root: Uint8Array;
  /** Extension lines after the root, without their newlines. */
  extensions: string[];
}

/** What the 4-byte key id of an Ed25519 key under a name is the SHA-256 of. */
export const keyIdInput = (name: string, rawPub: Uint8Array): Uint8Array =>
  concat(utf8(name), new Uint8Array([0x0a, ED25519]), rawPub);

/** A verifier key as written, its id not yet checked against its name and key. */
export interface VerifierKeyParts {
  name: string;
  /** The key id it states, lower-case hex. */
  id: string;
  publicKey: Uint8Array;
}

/** Reads a verifier key string; throws, saying what is wrong, when it is not one. */
export function readVerifierKey(vkey: string): VerifierKeyParts {
  // The base64 key may itself contain '+': the name and the id are the first two fields.
  const m = /^([^+\s]+)\+([0-9a-fA-F]{8})\+([A-Za-z0-9+/=]+)$/.exec(vkey.trim());
  if (!m) throw new Error('a verifier key is <name>+<key id>+<base64 key>');
  const [, name, id, b64] = m as unknown as [string, string, string, string];
  const bytes = fromBase64(b64);
  if (bytes?.length !== 33 || bytes[0] !== ED25519) throw new Error('not an Ed25519 verifier key');
  return { name, id: id.toLowerCase(), publicKey: bytes.subarray(1) };
}

/** The checkpoint's note text (what is signed). */
export function noteText(c: NoteCheckpoint): string {
  if (!c.origin || /[\n]/.test(c.origin)) throw new Error('the origin is one non-empty line');
  const ext = c.extensions.map((e) => `${e}\n`).join('');
  return `${c.origin}\n${c.size}\n${toBase64(c.root)}\n${ext}`;
}

export interface OpenedNote {
  text: string;
  signatures: Array<{ name: string; keyId: Uint8Array; signature: Uint8Array }>;
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
    const bytes = fromBase64(b64 ?? '');
    if (!name || !bytes || bytes.length < 5) throw new Error('a signature line is "— <name> <base64>"');
    signatures.push({ name, keyId: bytes.subarray(0, 4), signature: bytes.subarray(4) });
  }
  return { text, signatures };
}

/** The signatures of a note that name the key (its name and id): the ones worth checking. */
export const signaturesBy = (opened: OpenedNote, name: string, id: Uint8Array): OpenedNote['signatures'] =>
  opened.signatures.filter((s) => s.name === name && bytesEqual(s.keyId, id));

/** Reads a checkpoint's note text. */
export function readCheckpoint(text: string): NoteCheckpoint {
  const lines = text.split('\n');
  if (lines.length < 4 || lines[lines.length - 1] !== '') throw new Error('a checkpoint has three lines');
  const [origin, size, root, ...rest] = lines.slice(0, -1) as [string, string, string, ...string[]];
  if (!/^\d+$/.test(size)) throw new Error('the checkpoint size is a decimal number');
  const rootBytes = fromBase64(root);
  if (rootBytes?.length !== 32) throw new Error('the checkpoint root is 32 bytes in base64');
  return { origin, size: Number(size), root: rootBytes, extensions: rest };
}

/** The 4-byte key id of an Ed25519 key under a name (WebCrypto). */
export async function keyIdOf(name: string, rawPub: Uint8Array): Promise<Uint8Array> {
  return (await sha256(keyIdInput(name, rawPub))).subarray(0, 4);
}

/** Reads a verifier key and checks its id against its name and key (WebCrypto). */
export async function parseKey(vkey: string): Promise<{ name: string; publicKey: Uint8Array }> {
  const k = readVerifierKey(vkey);
  if (toHex(await keyIdOf(k.name, k.publicKey)) !== k.id)
    throw new Error('the verifier key id does not match its name and key');
  return { name: k.name, publicKey: k.publicKey };
}

/** Why a signed note does not verify with one key, or its text when a signature by that key is valid. */
export type NoteVerdict =
  | { ok: true; text: string }
  | {
      ok: false;
      /** Signed by other keys only (their names), by this key's name but with another key, or badly. */
      why: 'other-signer' | 'other-key' | 'bad-signature';
      signers: string[];
    };

/** Verifies a signed note against one key (WebCrypto). */
export async function checkNote(note: string, name: string, rawPub: Uint8Array): Promise<NoteVerdict> {
  const opened = openNote(note);
  const id = await keyIdOf(name, rawPub);
  const message = utf8(opened.text);
  const mine = signaturesBy(opened, name, id);
  for (const s of mine)
    if (await ed25519Verifies(rawPub, message, s.signature)) return { ok: true, text: opened.text };
  const signers = opened.signatures.map((s) => s.name);
  const why = mine.length > 0 ? 'bad-signature' : signers.includes(name) ? 'other-key' : 'other-signer';
  return { ok: false, why, signers };
}
