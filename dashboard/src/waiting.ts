/**
 * The phone's store of the inspections not yet sent (IndexedDB). Opened by the page itself, so that it
 * knows at start whether any wait, without loading the inspection form (`field.js`) for nothing.
 */
const DB = 'gateway-field';
export const FIELD_STORE = 'inspections';

let opened: Promise<IDBDatabase> | undefined;
export function fieldDb(): Promise<IDBDatabase> {
  opened ??= new Promise((resolve, reject) => {
    const req = indexedDB.open(DB, 1);
    req.onupgradeneeded = () => req.result.createObjectStore(FIELD_STORE, { keyPath: 'clientId' });
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error ?? new Error('the phone would not open its storage'));
  });
  opened.catch(() => {
    opened = undefined;
  });
  return opened;
}

/** How many inspections wait on this phone. */
export async function waitingCount(): Promise<number> {
  const d = await fieldDb();
  return new Promise((resolve, reject) => {
    const req = d.transaction(FIELD_STORE, 'readonly').objectStore(FIELD_STORE).count();
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error ?? new Error('the phone could not read its storage'));
  });
}
