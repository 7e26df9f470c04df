/**
 * A large store built quickly through the store's own API (the readings store and its evidence log, in
 * transactions of a few thousand, as the group commit writes them), for tests of a gateway starting on a
 * store of any size. The readings are a rain gauge's, one a minute, ending an hour before `now`; a signed
 * checkpoint is kept every `checkpointEvery` entries (as a running gateway signs one a minute), with the
 * key the gateway will find in the data directory.
 */

import { loadSigningKey } from '../../gateway/src/evidence/keys.ts';
import { checkpointText, signNote } from '../../gateway/src/ledger/checkpoint.ts';
import { openDatabase } from '../../gateway/src/store/db.ts';
import { EvidenceLog } from '../../gateway/src/store/evidenceLog.ts';
import { ReadingStore } from '../../gateway/src/store/readings.ts';

export interface BigStoreOptions {
  readings: number;
  gatewayId?: string;
  siteId?: string;
  deviceId?: string;
  checkpointEvery?: number;
  now?: number;
}

export function buildBigStore(dataDir: string, o: BigStoreOptions): { entries: number; checkpoints: number } {
  const { readings, gatewayId = 'test-gw', siteId = 'maple-ridge', deviceId = 'rg-1' } = o;
  const every = o.checkpointEvery ?? 100;
  const now = o.now ?? Date.now();
  const db = openDatabase(dataDir);
  try {
    const key = loadSigningKey({ gatewayId, dataDir });
    const log = new EvidenceLog(db);
    const store = new ReadingStore(db, log);
    const keep = db.prepare('INSERT INTO log_checkpoints (size, root, at, note) VALUES (?, ?, ?, ?)');
    const first = now - 3_600_000 - readings * 60_000;
    let checkpoints = 0;
    for (let done = 0; done < readings; done += every) {
      const n = Math.min(every, readings - done);
      db.transaction(() => {
        store.batch(() => {
          for (let i = done; i < done + n; i++) {
            const ts = first + i * 60_000;
            store.insert({
              siteId,
              deviceId,
              deviceKind: 'rain-gauge',
              ts,
              seq: i,
              receivedAt: ts + 500,
              transport: 'mqtt',
              values: { rainTips: 0 },
            });
          }
        });
        const size = log.size();
        const root = log.root();
        const note = signNote(
          checkpointText({ origin: key.name, size, root, extensions: [] }),
          key.name,
          key.privateKey,
        );
        keep.run(size, root, first + (done + n) * 60_000, note);
        checkpoints++;
      })();
    }
    return { entries: log.size(), checkpoints };
  } finally {
    db.close();
  }
}
