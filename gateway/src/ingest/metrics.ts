import type { Counter, Gauge, Histogram, Registry } from '../metrics.ts';

/** The ingest stage's metrics: messages by transport and outcome, rejections by reason, group commits. */
export class IngestMetrics {
  readonly messages: Counter;
  readonly rejections: Counter;
  readonly commits: Counter;
  readonly rows: Counter;
  readonly commitSeconds: Histogram;
  readonly refused: Counter;
  readonly quarantined: Counter;
  readonly pacedTotal: Counter;
  readonly paced: Gauge;
  /** One bound counter per transport and outcome: the label key is not built again for every message. */
  private readonly counters = new Map<string, (by?: number) => void>();

  constructor(metrics: Registry) {
    this.messages = metrics.counter('gateway_messages_total', 'Messages received, by transport and outcome');
    this.rejections = metrics.counter('gateway_rejections_total', 'Messages rejected, by reason');
    this.commits = metrics.counter('gateway_store_commits_total', 'Group commits to the local store');
    this.rows = metrics.counter('gateway_store_writes_total', 'Rows written to the local store, by table');
    this.refused = metrics.counter(
      'gateway_refused_total',
      'Messages refused unacknowledged (the sender keeps them), by reason',
    );
    this.quarantined = metrics.counter(
      'gateway_quarantined_total',
      'Messages kept in the quarantine (acknowledged, not yet usable), by reason',
    );
    this.pacedTotal = metrics.counter(
      'gateway_rate_paced_total',
      'Messages held back for their device rate (slowed down, not dropped)',
    );
    this.paced = metrics.gauge('gateway_rate_paced_waiting', 'Messages waiting now for their device rate');
    this.commitSeconds = metrics.histogram(
      'gateway_store_commit_seconds',
      'Duration of a group commit',
      [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
    );
  }

  /** Counts one rejection by reason (a bound counter per reason, as for count()). */
  rejected(reason: string): void {
    const k = `reason/${reason}`;
    let c = this.counters.get(k);
    if (!c) {
      c = this.rejections.bind({ reason });
      this.counters.set(k, c);
    }
    c();
  }

  /**
   * Counts one message of a transport with its outcome (stored, duplicate, rejected, refused, dropped,
   * status, ignored).
   */
  count(transport: string, result: string): void {
    const k = `${transport}/${result}`;
    let c = this.counters.get(k);
    if (!c) {
      c = this.messages.bind({ transport, result });
      this.counters.set(k, c);
    }
    c();
  }
}
