/**
 * Version 11: device logins verified fast after a restart. `login_keys` holds the gateway's own random
 * keys (one, `device-credentials`); `device_credential_macs` a keyed hash (HMAC-SHA256) of a device's
 * secret for each scrypt hash it was verified against once, so a reconnecting device costs a
 * microsecond, not a 65 ms scrypt check. A row is keyed by the scrypt hash itself: a changed secret has
 * a new hash and no row until it is verified once (`ingest/mqtt/credentialMacs.ts`).
 */
import type { Db } from '../types.ts';

export function v11(db: Db): void {
  db.exec(`
CREATE TABLE IF NOT EXISTS login_keys (
  name TEXT PRIMARY KEY,
  key BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS device_credential_macs (
  hash TEXT PRIMARY KEY,
  mac BLOB NOT NULL,
  verified_at INTEGER NOT NULL
);
`);
}
