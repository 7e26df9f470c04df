import { createPrivateKey, generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  checkpointText,
  openNote,
  parseCheckpoint,
  parseVerifierKey,
  rawPublicKey,
  signNote,
  verifierKey,
  verifyNote,
} from '../../gateway/src/ledger/checkpoint.ts';
import { leafHash } from '../../gateway/src/ledger/merkle.ts';

// The example key and note of the signed-note reference implementation (golang.org/x/mod/sumdb/note).
const VKEY = 'PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW';
const SEED = Buffer.from('AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz', 'base64').subarray(1);
const TEXT =
  "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n";
const NOTE = `${TEXT}\n— PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n`;

const fromSeed = (seed: Buffer) =>
  createPrivateKey({
    key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]),
    format: 'der',
    type: 'pkcs8',
  });

describe('signed notes and checkpoints (C2SP)', () => {
  it('matches the reference example byte for byte', () => {
    const key = fromSeed(SEED);
    expect(verifierKey('PeterNeumann', rawPublicKey(key))).toBe(VKEY);
    expect(signNote(TEXT, 'PeterNeumann', key)).toBe(NOTE);
    const { name, publicKey } = parseVerifierKey(VKEY);
    expect(verifyNote(NOTE, name, publicKey)).toBe(TEXT);
  });

  it('refuses an altered text, another key, a mangled verifier key', () => {
    const { name, publicKey } = parseVerifierKey(VKEY);
    expect(() => verifyNote(NOTE.replace('cryptography', 'cryptographY'), name, publicKey)).toThrow(
      /no valid signature/,
    );
    const other = generateKeyPairSync('ed25519');
    expect(() => verifyNote(NOTE, name, rawPublicKey(other.publicKey))).toThrow(/no valid signature/);
    expect(() => parseVerifierKey(VKEY.replace('c74f20a3', 'c74f20a4'))).toThrow(/key id/);
    expect(() => parseVerifierKey('PeterNeumann+c74f20a3')).toThrow();
  });

  it('writes and reads a checkpoint note', () => {
    const { privateKey } = generateKeyPairSync('ed25519');
    const cp = { origin: 'chester-1.gateway/log', size: 12345, root: leafHash('x'), extensions: [] };
    const text = checkpointText(cp);
    expect(text.split('\n')).toEqual(['chester-1.gateway/log', '12345', cp.root.toString('base64'), '']);
    const note = signNote(text, 'chester-1.gateway/log', privateKey);
    expect(openNote(note).signatures).toHaveLength(1);
    const back = parseCheckpoint(verifyNote(note, 'chester-1.gateway/log', rawPublicKey(privateKey)));
    expect(back).toEqual(cp);
    expect(() => parseCheckpoint('o\n12x\nAAAA\n')).toThrow(/decimal/);
    expect(() => parseCheckpoint('o\n12\nAAAA\n')).toThrow(/32 bytes/);
  });
});
