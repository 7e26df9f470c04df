/**
 * A bound on what the embedded broker queues for a persistent session: at most `max` QoS 1 messages wait
 * for one client id; beyond that a message for it is dropped and counted (the alerts behind them stay in
 * the store and the API). The broker's in-memory persistence keeps no such bound itself, so one login's
 * sessions left away could otherwise hold every alert ever published.
 */
import type { Aedes } from 'aedes';
import type { Counter } from '../../metrics.ts';

interface Sub {
  clientId: string;
}

interface QueuePersistence {
  outgoingEnqueue(sub: Sub, packet: unknown): Promise<void>;
  outgoingEnqueueCombi(subs: Sub[], packet: unknown): Promise<void>;
  outgoingClearMessageId(client: { id: string }, packet: unknown): Promise<unknown>;
}

export function boundOfflineQueues(broker: Aedes, max: number, dropped: Counter): void {
  const p = (broker as unknown as { persistence: QueuePersistence }).persistence;
  const queued = new Map<string, number>();
  const admit = (sub: Sub): boolean => {
    const n = queued.get(sub.clientId) ?? 0;
    if (n >= max) {
      dropped.inc();
      return false;
    }
    queued.set(sub.clientId, n + 1);
    return true;
  };
  const enqueue = p.outgoingEnqueue.bind(p);
  const enqueueCombi = p.outgoingEnqueueCombi.bind(p);
  const clear = p.outgoingClearMessageId.bind(p);
  p.outgoingEnqueue = (sub, packet) => (admit(sub) ? enqueue(sub, packet) : Promise.resolve());
  p.outgoingEnqueueCombi = (subs, packet) => enqueueCombi(subs.filter(admit), packet);
  p.outgoingClearMessageId = async (client, packet) => {
    const gone = await clear(client, packet);
    if (gone) {
      const n = (queued.get(client.id) ?? 1) - 1;
      if (n > 0) queued.set(client.id, n);
      else queued.delete(client.id);
    }
    return gone;
  };
}
