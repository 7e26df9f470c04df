/**
 * Device secrets verified once by scrypt, then by a keyed hash. Devices hold machine-generated secrets
 * (32 random bytes) and present them on every connect; after a restart a whole fleet reconnects at
 * once, and two scrypt checks at a time (65 ms each) would keep 10,000 devices out for minutes. So the
 * first successful scrypt check of a secret stores HMAC-SHA256(gateway key, scrypt hash, secret) beside
 * it; later logins compare that in a microsecond. Keyed by the scrypt hash, a row stops applying as soon
 * as the device's secret (and so its hash) changes. People and MQTT users keep scrypt on every check.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Db } from '../../store/types.ts';

export interface CredentialCache {
  /** Whether the password is the one verified before against this scrypt hash. */
  known(hash: string, password: Buffer): boolean;
  /** Records a password verified by scrypt against this hash. */
  remember(hash: string, password: Buffer): void;
}

const KEY_NAME = 'device-credentials';

export class CredentialMacs implements CredentialCache {
  private readonly key: Buffer;
  private readonly stmts;

  constructor(
    db: Db,
    private readonly now: () => number = Date.now,
    /** Hears of a mac that could not be stored (a full disk): the next login is checked by scrypt. */
    private readonly onError: (e: unknown) => void = () => {},
  ) {
    const getKey = db.prepare<[string], { key: Buffer }>('SELECT key FROM login_keys WHERE name = ?');
    let key = getKey.get(KEY_NAME)?.key;
    if (!key) {
      key = randomBytes(32);
      try {
        db.prepare('INSERT OR IGNORE INTO login_keys (name, key) VALUES (?, ?)').run(KEY_NAME, key);
        key = getKey.get(KEY_NAME)?.key ?? key;
      } catch (e) {
        // A store that cannot be written: a key for this run only (its macs are not stored either).
        onError(e);
      }
    }
    this.key = key;
    this.stmts = {
      get: db.prepare<[string], { mac: Buffer }>('SELECT mac FROM device_credential_macs WHERE hash = ?'),
      put: db.prepare(
        'INSERT OR REPLACE INTO device_credential_macs (hash, mac, verified_at) VALUES (?, ?, ?)',
      ),
    };
  }

  known(hash: string, password: Buffer): boolean {
    const row = this.stmts.get.get(hash);
    return row !== undefined && row.mac.length === 32 && timingSafeEqual(row.mac, this.mac(hash, password));
  }

  remember(hash: string, password: Buffer): void {
    try {
      this.stmts.put.run(hash, this.mac(hash, password), this.now());
    } catch (e) {
      this.onError(e);
    }
  }

  private mac(hash: string, password: Buffer): Buffer {
    return createHmac('sha256', this.key).update(hash).update('\u0000').update(password).digest();
  }
}
