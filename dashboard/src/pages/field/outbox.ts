/**
 * Inspections typed in the field wait on this phone (IndexedDB, with their photos as Blobs) until the
 * gateway has them: each keeps the browser's own id (`clientId`) and its original time, so a resend is
 * answered with the same inspection, never a second one. They are sent in the order they were typed:
 * the photos first, then the inspection. A refusal (a 4xx) is kept, with its reason in words, for the
 * person to fix or discard; a network failure or a gateway that cannot store just now leaves it waiting.
 */
import type { InspectionRecorded } from '../../../../shared/src/api/alerts.ts';
import type { InspectionBody, InspectionSide } from '../../../../shared/src/api/findings.ts';
import type { FindingStatus } from '../../../../shared/src/api/inspectionWords.ts';
import { ApiError, describeError, errorDetail, post } from '../../api.js';
import { type QueuedPhoto, uploadPhotos } from '../../ui/photos.js';
import { FIELD_STORE, fieldDb } from '../../waiting.js';

export interface QueuedFinding {
  practice: string;
  status: FindingStatus;
  note: string;
  photos: QueuedPhoto[];
}

/** An inspection as it waits: the body to send, its photos as Blobs, and a refusal if it had one. */
export interface QueuedInspection {
  clientId: string;
  /** When it was typed (ms): the order of sending. */
  queuedAt: number;
  siteId: string;
  /** The site's name and time zone when it was typed: the phone shows them without a connection. */
  siteName?: string;
  timezone?: string;
  at: string;
  inspector: string;
  kind: InspectionBody['kind'];
  notes?: string;
  findings?: QueuedFinding[];
  /** An annual inspection's deficiencies to remedy; a pump-out's hauler (law 000). */
  deficiencies?: InspectionBody['deficiencies'];
  hauler?: InspectionBody['hauler'];
  /** Earlier deficiencies of the site this visit found remedied (their ids). */
  remedied?: InspectionBody['remedied'];
  /** Whose inspection it is: the developer's side or the town's (the gateway's default when none). */
  side?: InspectionSide;
  /** The inspector's signature under the statement, as signed in the form. */
  signature?: InspectionBody['signature'];
  /** The gateway refused it: why, in words (and the technical detail for the tooltip). */
  refusal?: { text: string; detail: string };
}

/** What happened to an inspection the outbox tried to send. */
export type OutboxEvent =
  | { type: 'sent'; entry: QueuedInspection; recorded: InspectionRecorded }
  | { type: 'refused'; entry: QueuedInspection }
  | { type: 'waiting'; entry: QueuedInspection; reason: string; offline: boolean }
  | { type: 'changed' };

async function tx<T>(mode: IDBTransactionMode, fn: (s: IDBObjectStore) => IDBRequest<T>): Promise<T> {
  const d = await fieldDb();
  return new Promise<T>((resolve, reject) => {
    const t = d.transaction(FIELD_STORE, mode);
    const req = fn(t.objectStore(FIELD_STORE));
    // Resolved once the transaction is committed: only then is it on the phone for good.
    t.oncomplete = () => resolve(req.result);
    t.onerror = () => reject(t.error ?? new Error('the phone could not store the inspection'));
    t.onabort = () => reject(t.error ?? new Error('the phone could not store the inspection'));
  });
}

/** Every waiting inspection, in the order they were typed. */
export async function queued(): Promise<QueuedInspection[]> {
  const all = await tx<QueuedInspection[]>('readonly', (s) => s.getAll());
  return all.sort((a, b) => a.queuedAt - b.queuedAt);
}

/** Keeps an inspection on this phone (resolves once stored). */
export async function keep(entry: QueuedInspection): Promise<void> {
  await tx('readwrite', (s) => s.put(entry));
  emit({ type: 'changed' });
}

export async function discard(clientId: string): Promise<void> {
  await tx('readwrite', (s) => s.delete(clientId));
  emit({ type: 'changed' });
}

const listeners: Set<(e: OutboxEvent) => void> = new Set();
export function onOutbox(fn: (e: OutboxEvent) => void) {
  listeners.add(fn);
}
function emit(e: OutboxEvent) {
  for (const fn of listeners) fn(e);
}

/** The body of POST /api/inspections, once every photo has its hash. */
function bodyOf(e: QueuedInspection): InspectionBody {
  return {
    siteId: e.siteId,
    at: e.at,
    inspector: e.inspector,
    kind: e.kind,
    clientId: e.clientId,
    ...(e.side ? { side: e.side } : {}),
    ...(e.notes ? { notes: e.notes } : {}),
    ...(e.deficiencies?.length ? { deficiencies: e.deficiencies } : {}),
    ...(e.hauler ? { hauler: e.hauler } : {}),
    ...(e.remedied?.length ? { remedied: e.remedied } : {}),
    ...(e.signature ? { signature: e.signature } : {}),
    ...(e.findings
      ? {
          findings: e.findings.map((f) => ({
            practice: f.practice,
            status: f.status,
            note: f.note,
            photos: f.photos.map((p) => p.sha256 ?? ''),
          })),
        }
      : {}),
  };
}

/** Sends one inspection: its photos not yet stored, then the inspection itself. */
async function sendOne(e: QueuedInspection, kept: boolean): Promise<InspectionRecorded> {
  // Charged to the inspection's site (its photo quota).
  const uploaded = await uploadPhotos(
    e.siteId,
    (e.findings ?? []).flatMap((f) => f.photos),
  );
  // The hashes are kept with it: sent again, its photos are not uploaded twice.
  if (uploaded && kept) await keep(e);
  return post('POST /api/inspections', { body: bodyOf(e) });
}

/** Refused for what it is (a 4xx), not for the moment: kept for the person to fix or discard. */
const isRefusal = (err: unknown) =>
  err instanceof ApiError &&
  err.status >= 400 &&
  err.status < 500 &&
  ![401, 408, 429].includes(err.status) &&
  err.code !== 'CSRF';

/**
 * Tries to send one inspection now. Sent: removed from the phone. Refused: kept with its reason. Not
 * reached: kept, waiting. Rejects only when the phone itself fails. `kept: false`: the phone could not
 * keep it (no storage), it is only sent.
 */
export async function trySend(e: QueuedInspection, kept = true): Promise<OutboxEvent> {
  let ev: OutboxEvent;
  try {
    const recorded = await sendOne(e, kept);
    if (kept) await discard(e.clientId);
    ev = { type: 'sent', entry: e, recorded };
  } catch (err) {
    if (isRefusal(err)) {
      e.refusal = { text: describeError(err), detail: errorDetail(err) };
      if (kept) await keep(e);
      ev = { type: 'refused', entry: e };
    } else {
      if (!(err instanceof TypeError) && !(err instanceof ApiError)) throw err;
      ev = { type: 'waiting', entry: e, reason: describeError(err), offline: err instanceof TypeError };
    }
  }
  emit(ev);
  return ev;
}

/** What a round of sending left: nothing to send (those refused wait for the person), or some waiting. */
export type FlushResult = 'settled' | 'waiting';

let flushing: Promise<FlushResult> | undefined;
let again = false;
/**
 * Sends the waiting inspections in order (those refused stay for the person). Stops at the first one the
 * gateway did not take for the moment: the later ones would meet the same. Offline, it does not try.
 * Called while it runs (a new inspection kept), it goes round once more.
 */
export function flushOutbox(): Promise<FlushResult> {
  if (flushing) {
    again = true;
    return flushing;
  }
  const round = async (): Promise<FlushResult> => {
    do {
      again = false;
      if (!navigator.onLine) return 'waiting';
      for (const e of await queued()) {
        if (e.refusal) continue;
        if ((await trySend(e)).type === 'waiting') return 'waiting';
      }
    } while (again);
    return 'settled';
  };
  // Cleared once the round is over: `.finally` runs after this assignment even when the round ends at
  // once (offline), which a `finally` inside the round would not (it would run before, and the outbox
  // would believe a round is going on for good).
  flushing = round().finally(() => {
    flushing = undefined;
  });
  return flushing;
}

/**
 * When to try again after a round that left inspections waiting: soon after the first miss (a connection
 * that has just come back often fails its first requests), then less often, up to once a minute.
 */
export function retryDelay(misses: number): number {
  return Math.min(60_000, 2_000 * 2 ** Math.max(0, misses - 1));
}

/** A fresh id for an inspection (crypto.randomUUID needs HTTPS; a gateway on the LAN may be plain HTTP). */
export function newClientId(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = ((b[6] ?? 0) & 0x0f) | 0x40;
  b[8] = ((b[8] ?? 0) & 0x3f) | 0x80;
  const hex = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
