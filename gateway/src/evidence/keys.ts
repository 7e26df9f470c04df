/**
 * The gateway's checkpoint signing key (Ed25519). Generated on first start into the data directory
 * (`checkpoint-key.pem`, mode 0600) unless a key file is configured; a configured file must exist.
 * Only the public key ever leaves this module in printable form.
 */
import { createPrivateKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { rawPublicKey, verifierKey } from '../ledger/checkpoint.ts';

export interface SigningKey {
  /** The note signer name, which is also the checkpoint origin. */
  name: string;
  privateKey: KeyObject;
  publicKey: Buffer;
  /** `<name>+<key id>+<base64 key>`: what a verifier needs. */
  verifierKey: string;
  /** Where the key was read from. */
  file: string;
  generated: boolean;
}

export const DEFAULT_KEY_FILE = 'checkpoint-key.pem';

/** The checkpoint origin of a gateway: a name that is unique to it among gateways. */
export function originOf(gatewayId: string): string {
  return `${gatewayId}.gateway/evidence`;
}

export function loadSigningKey(opts: {
  gatewayId: string;
  dataDir: string;
  keyFile?: string | undefined;
  /** When the key file does not exist: a key in memory only, never written (it must sign nothing). */
  ephemeral?: boolean;
}): SigningKey {
  const name = originOf(opts.gatewayId);
  const file = opts.keyFile ?? join(opts.dataDir, DEFAULT_KEY_FILE);
  let generated = false;
  if (!existsSync(file) && opts.ephemeral) {
    const { privateKey } = generateKeyPairSync('ed25519');
    const publicKey = rawPublicKey(privateKey);
    return { name, privateKey, publicKey, verifierKey: verifierKey(name, publicKey), file, generated };
  }
  if (!existsSync(file)) {
    if (opts.keyFile) throw new Error(`the checkpoint key file ${opts.keyFile} does not exist`);
    const { privateKey } = generateKeyPairSync('ed25519');
    writeFileSync(file, privateKey.export({ format: 'pem', type: 'pkcs8' }), { mode: 0o600, flag: 'wx' });
    generated = true;
  }
  if (!generated && !opts.keyFile && (statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
  const privateKey = createPrivateKey(readFileSync(file));
  if (privateKey.asymmetricKeyType !== 'ed25519')
    throw new Error(`the checkpoint key in ${file} is not Ed25519`);
  const publicKey = rawPublicKey(privateKey);
  return { name, privateKey, publicKey, verifierKey: verifierKey(name, publicKey), file, generated };
}
