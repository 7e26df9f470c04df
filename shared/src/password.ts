import { randomBytes, scrypt, scryptSync, timingSafeEqual } from 'node:crypto';

/** scrypt parameters: N=16384, r=8, p=1, 32-byte key. The format is `scrypt$<salt hex>$<key hex>`. */
const KEYLEN = 32;

export function hashPassword(password: string, salt: Buffer = randomBytes(16)): string {
  return `scrypt$${salt.toString('hex')}$${scryptSync(password, salt, KEYLEN).toString('hex')}`;
}

export function verifyPassword(password: string, hash: string): boolean {
  const parts = hash.split('$');
  if (parts.length !== 3 || parts[0] !== 'scrypt') return false;
  const salt = Buffer.from(parts[1]!, 'hex');
  const want = Buffer.from(parts[2]!, 'hex');
  if (want.length !== KEYLEN) return false;
  return timingSafeEqual(scryptSync(password, salt, KEYLEN), want);
}

/** The same check without blocking the event loop (scrypt runs on the thread pool). */
export function verifyPasswordAsync(password: string | Buffer, hash: string): Promise<boolean> {
  const parts = hash.split('$');
  if (parts.length !== 3 || parts[0] !== 'scrypt') return Promise.resolve(false);
  const salt = Buffer.from(parts[1]!, 'hex');
  const want = Buffer.from(parts[2]!, 'hex');
  if (want.length !== KEYLEN) return Promise.resolve(false);
  return new Promise((resolve, reject) =>
    scrypt(password, salt, KEYLEN, (err, key) => (err ? reject(err) : resolve(timingSafeEqual(key, want)))),
  );
}
