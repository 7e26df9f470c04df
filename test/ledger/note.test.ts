/**
 * Signed notes read and checked with WebCrypto (note.ts, what the report verifier uses), against the
 * example of the signed-note reference implementation (golang.org/x/mod/sumdb/note) and a note the
 * gateway's own signer (checkpoint.ts, node:crypto) writes.
 */
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkpointText, rawPublicKey, signNote } from '../../gateway/src/ledger/checkpoint.ts';
import { leafHash } from '../../gateway/src/ledger/merkle.ts';
import { checkNote, parseKey, readCheckpoint } from '../../gateway/src/ledger/note.ts';

const VKEY = 'PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW';
const TEXT =
  "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n";
const NOTE = `${TEXT}\n— PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n`;

describe('signed notes with WebCrypto', () => {
  it('verifies the reference example, and refuses it altered or with another key', async () => {
    const { name, publicKey } = await parseKey(VKEY);
    expect(await checkNote(NOTE, name, publicKey)).toEqual({ ok: true, text: TEXT });
    expect(await checkNote(NOTE.replace('cryptography', 'cryptographY'), name, publicKey)).toEqual({
      ok: false,
      why: 'bad-signature',
      signers: ['PeterNeumann'],
    });
    const other = rawPublicKey(generateKeyPairSync('ed25519').publicKey);
    expect(await checkNote(NOTE, name, other)).toMatchObject({ ok: false, why: 'other-key' });
    expect(await checkNote(NOTE, 'someone', other)).toMatchObject({ ok: false, why: 'other-signer' });
    await expect(parseKey(VKEY.replace('c74f20a3', 'c74f20a4'))).rejects.toThrow(/key id/);
    await expect(parseKey('PeterNeumann+c74f20a3')).rejects.toThrow(/<name>\+<key id>\+<base64 key>/);
  });

  it("reads the gateway's checkpoints as the gateway writes them", async () => {
    const { privateKey } = generateKeyPairSync('ed25519');
    const cp = { origin: 'chester-1.gateway/log', size: 12345, root: leafHash('x'), extensions: [] };
    const note = signNote(checkpointText(cp), cp.origin, privateKey);
    const v = await checkNote(note, cp.origin, rawPublicKey(privateKey));
    expect(v.ok).toBe(true);
    const back = readCheckpoint((v as { text: string }).text);
    expect(back.size).toBe(12345);
    expect(Buffer.from(back.root).equals(cp.root)).toBe(true);
  });
});
