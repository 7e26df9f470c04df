import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { CredentialMacs } from '../gateway/src/ingest/mqtt/credentialMacs.ts';
import { v11 } from '../gateway/src/store/schema/v11.ts';
import { hashPassword } from '../shared/src/password.ts';

describe('device secrets verified by a keyed hash', () => {
  it('knows a secret verified once, across a reopen; not a wrong one, not under a new hash', () => {
    const db = new Database(':memory:');
    v11(db);
    const hash = hashPassword('pw-rg-1');
    const pw = Buffer.from('pw-rg-1');
    const a = new CredentialMacs(db);
    expect(a.known(hash, pw)).toBe(false);
    a.remember(hash, pw);
    const b = new CredentialMacs(db); // a restart: the same key from the store
    expect(b.known(hash, pw)).toBe(true);
    expect(b.known(hash, Buffer.from('pw-rg-2'))).toBe(false);
    expect(b.known(hashPassword('pw-rg-1'), pw)).toBe(false);
    // A microsecond, not a scrypt: 10,000 checks well under a second.
    const t0 = performance.now();
    for (let i = 0; i < 10_000; i++) b.known(hash, pw);
    expect(performance.now() - t0).toBeLessThan(5000);
  });
});
