/**
 * The notification stage at start: one info line naming the channels on and those not configured; a
 * delivery to a channel left out of the configuration fails in the store as before but is logged at
 * debug level, not as an error (a real permanent failure still is one); and settled() resolves once the
 * deliveries waiting at start were tried.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Registry } from '../../gateway/src/metrics.ts';
import { NotificationStage } from '../../gateway/src/notify/stage.ts';
import { addEvent, makeConfig, memoryLog, siteOfConfig, type TempDb, tempDb } from './support.ts';

describe('the notification stage', () => {
  let store: TempDb | undefined;
  let stage: NotificationStage | undefined;
  afterEach(async () => {
    await stage?.stop();
    store?.cleanup();
    stage = undefined;
    store = undefined;
  });

  const levelOf = (line: string) => line.split(' ')[0];

  it('says at start which channels are not configured, and logs their deliveries at debug level', async () => {
    store = tempDb();
    const log = memoryLog();
    const config = makeConfig(
      {
        recipients: [
          { role: 'officer', email: 'smo@town.example' },
          { role: 'developer', email: 'site@dev.example' },
        ],
      },
      { webhookSecret: undefined },
    );
    stage = new NotificationStage(config, {
      db: store.db,
      now: Date.now,
      log,
      metrics: new Registry(),
      siteOf: siteOfConfig(config),
    });
    const published: string[] = [];
    stage.publishWith({
      publish: async (topic) => {
        published.push(topic);
      },
    });
    addEvent(store.db, 'ev-1');
    await stage.start();
    await stage.settled();

    const startLine = log.lines.find((l) => l.includes('"notConfigured"'));
    expect(startLine && levelOf(startLine)).toBe('info');
    expect(startLine).toContain('"on":["MQTT"]');
    expect(startLine).toContain('e-mail (notify.smtp)');
    expect(startLine).toContain('webhooks (notify.webhookSecret)');
    // Tried once by the time settled() resolves: MQTT sent, both e-mails failed for want of SMTP.
    expect(published).toEqual(['alerts/maple-ridge/storm-inspection']);
    const rows = stage.dispatcher.list();
    expect(rows.map((r) => [r.channel, r.status]).sort()).toEqual([
      ['email', 'failed'],
      ['email', 'failed'],
      ['mqtt', 'sent'],
    ]);
    expect(stage.health().failed).toBe(2);
    expect(log.lines.filter((l) => levelOf(l) === 'error' || levelOf(l) === 'warn')).toEqual([]);
    const notSent = log.lines.filter((l) => l.includes('its channel is not configured'));
    expect(notSent.map(levelOf)).toEqual(['debug', 'debug']);
  });

  it('still logs a permanent failure of a configured channel as an error', async () => {
    store = tempDb();
    const log = memoryLog();
    const config = makeConfig();
    stage = new NotificationStage(config, {
      db: store.db,
      now: Date.now,
      log,
      metrics: new Registry(),
      siteOf: siteOfConfig(config),
    });
    // A payload that is not JSON: the delivery fails for good, and that is a fault.
    store.db
      .prepare(
        `INSERT INTO notification_events (event_id, kind, alert_id, site_id, rule, payload, created_at)
         VALUES ('ev-bad', 'raise', 'a', 'maple-ridge', 'storm-inspection', '{oops', 0)`,
      )
      .run();
    stage.publishWith({ publish: async () => undefined });
    await stage.start();
    await stage.settled();
    const failed = log.lines.filter((l) => l.includes('giving up'));
    expect(failed.map(levelOf)).toEqual(['error']);
  });
});
