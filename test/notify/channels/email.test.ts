import { afterEach, describe, expect, it } from 'vitest';
import {
  composeAlertEmail,
  type EmailRequest,
  emailChannel,
  SmtpEmailSender,
  summarizeEvidence,
} from '../../../gateway/src/notify/channels/email.ts';
import { NotificationDispatcher } from '../../../gateway/src/notify/dispatcher.ts';
import { formatLocal } from '../../../shared/src/time.ts';
import { waitFor } from '../../helpers/env.ts';
import {
  addEvent,
  configAndSites,
  makeAlert,
  makeConfig,
  makeDelivery,
  parseMail,
  siteOfConfig,
  startSmtp,
  type TempDb,
  type TestSmtpServer,
  tempDb,
} from '../support.ts';

describe('composeAlertEmail', () => {
  it('formats the subject and due time in the site zone and in UTC, without links', () => {
    const mail = composeAlertEmail(
      {
        to: 'officer@town.example',
        kind: 'overdue',
        eventId: 'ev-42',
        alert: makeAlert({
          status: 'open',
          overdue: true,
          evidence: { photo: 'see https://evil.example/x?y=1 for details', inches: 0.62 },
        }),
        siteName: 'Maple Ridge subdivision',
        timeZone: 'America/New_York',
      },
      { from: 'Gateway <alerts@town.example>' },
    );
    expect(mail.subject).toBe('[OVERDUE] storm-inspection at maple-ridge — due 2026-12-01 14:00 EST');
    expect(mail.text).toContain('Due:       2026-12-01 14:00 EST (2026-12-01 19:00 UTC)');
    expect(mail.text).toContain('Status:    open, OVERDUE');
    expect(mail.text).toContain('inches: 0.62');
    expect(mail.text).not.toMatch(/https?:\/\//);
    expect(mail.messageId).toBe('<notify.ev-42@town.example>');
  });

  it('shows daylight time in summer and leaves out a missing deadline', () => {
    expect(formatLocal(Date.parse('2026-07-01T16:30:00Z'), 'America/New_York')).toBe('2026-07-01 12:30 EDT');
    const mail = composeAlertEmail(
      { to: 'a@b.example', kind: 'raise', eventId: 'e', alert: makeAlert({ dueAt: null }), timeZone: 'UTC' },
      { from: 'gateway@localhost' },
    );
    expect(mail.subject).toBe('[NEW] storm-inspection at maple-ridge');
    expect(mail.text).toContain('Due:       no deadline');
  });

  it('lists the latest changes with who made them and the note they carried', () => {
    const mail = composeAlertEmail(
      {
        to: 'a@b.example',
        kind: 'resolve',
        eventId: 'e',
        alert: makeAlert({
          history: [
            {
              seq: 1,
              at: '2026-11-30T19:00:00.000Z',
              actor: 'system',
              action: 'raised',
              detail: { message: 'Storm' },
            },
            {
              seq: 2,
              at: '2026-11-30T20:00:00.000Z',
              actor: 'J. Inspector',
              action: 'acknowledged',
              detail: {},
            },
            {
              seq: 3,
              at: '2026-11-30T21:00:00.000Z',
              actor: 'J. Inspector',
              action: 'resolved',
              detail: { note: 'fence fixed' },
            },
          ],
        }),
        timeZone: 'UTC',
      },
      { from: 'gateway@localhost' },
    );
    expect(mail.text).toContain('raised by system — Storm');
    expect(mail.text).toContain('acknowledged by J. Inspector');
    expect(mail.text).toContain('resolved by J. Inspector — fence fixed');
    expect(mail.text).not.toContain('[object Object]');
  });

  it('says what closed a resolved alert: the inspection, by whom and when; an old resolution as before', () => {
    const cause = {
      kind: 'inspection' as const,
      inspectionId: 'insp-1',
      inspector: 'Ina Spector',
      inspectionKind: 'storm',
      at: '2026-12-01T15:00:00.000Z',
    };
    const resolved = (withCause: boolean) =>
      composeAlertEmail(
        {
          to: 'officer@town.example',
          kind: 'resolve',
          eventId: 'ev-43',
          alert: makeAlert({
            status: 'resolved',
            resolvedAt: '2026-12-01T16:00:00.000Z',
            resolution: { how: 'auto', by: 'ina', evidence: {}, ...(withCause ? { cause } : {}) },
            history: [
              {
                seq: 3,
                at: '2026-12-01T16:00:00.000Z',
                actor: 'ina',
                action: 'resolved',
                detail: { how: 'auto', ...(withCause ? { cause } : {}) },
              },
            ],
          }),
          timeZone: 'America/New_York',
        },
        { from: 'Gateway <alerts@town.example>' },
      ).text;
    const text = resolved(true);
    expect(text).toContain('Resolved:  2026-12-01 11:00 EST (2026-12-01 16:00 UTC)');
    expect(text).toContain('by the storm inspection by Ina Spector on 2026-12-01 10:00 EST');
    expect(text).toMatch(/2026-12-01 11:00 EST .* Resolved by the storm inspection by Ina Spector/);
    // Resolved before causes were kept: no line of its cause, the history as it read.
    const old = resolved(false);
    expect(old).not.toContain('Resolved:');
    expect(old).toContain('resolved by ina');
  });

  it('bounds the evidence summary', () => {
    const big = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, i]));
    const lines = summarizeEvidence(big, 'UTC', 10);
    expect(lines).toHaveLength(11);
    expect(lines.at(-1)).toContain('more evidence');
  });
});

describe('e-mail delivery to a real SMTP server', () => {
  let smtp: TestSmtpServer | undefined;
  let store: TempDb | undefined;
  let dispatcher: NotificationDispatcher | undefined;

  afterEach(async () => {
    await dispatcher?.stop();
    await smtp?.close();
    store?.cleanup();
    dispatcher = undefined;
    smtp = undefined;
    store = undefined;
  });

  it('delivers one message per recipient with the subject, body and Message-ID', async () => {
    smtp = await startSmtp();
    store = tempDb();
    const config = makeConfig(
      {
        recipients: [
          { role: 'officer', name: 'Town Officer', email: 'officer@town.example' },
          { role: 'developer', email: 'builder@contractor.example' },
        ],
      },
      { smtp: { host: '127.0.0.1', port: smtp.port, from: 'Stormwatch <alerts@town.example>' } },
    );
    dispatcher = new NotificationDispatcher({
      db: store.db,
      ...configAndSites(config),
      channels: { email: new SmtpEmailSender({ smtp: config.notify.smtp!, gatewayId: config.gatewayId }) },
      retry: { baseMs: 50, jitter: 0 },
    });
    addEvent(store.db, 'ev-mail-1', 'overdue', makeAlert({ overdue: true }));
    await dispatcher.start();
    dispatcher.notify();
    await waitFor(() => smtp!.messages.length === 2, 10_000, 'two messages');
    await waitFor(() => dispatcher!.list({ status: 'sent' }).length === 2, 5_000, 'both marked sent');

    const to = smtp.messages.flatMap((m) => m.to).sort();
    expect(to).toEqual(['builder@contractor.example', 'officer@town.example']);
    const officer = smtp.messages.find((m) => m.to[0] === 'officer@town.example')!;
    expect(officer.from).toBe('alerts@town.example');
    const { headers, text } = parseMail(officer.raw);
    expect(headers.subject).toBe('[OVERDUE] storm-inspection at maple-ridge — due 2026-12-01 14:00 EST');
    expect(headers.to).toContain('Town Officer');
    expect(headers['message-id']).toBe('<notify.ev-mail-1@town.example>');
    expect(headers['x-gateway-delivery']).toBe('ev-mail-1');
    expect(text).toContain('Storm of 0.62 in at rg-1');
    expect(text).toContain('2026-12-01 14:00 EST (2026-12-01 19:00 UTC)');
    expect(text).toContain('Maple Ridge subdivision (maple-ridge)');
    expect(text).toContain('tips: 62');
  });

  it('fails a recipient the server rejects with 550 at once, and retries a 451', async () => {
    let tempFailures = 0;
    smtp = await startSmtp({
      onRcptTo(address, _session, callback) {
        if (address.address.startsWith('nobody')) {
          const err = Object.assign(new Error('5.1.1 no such user'), { responseCode: 550 });
          callback(err);
          return;
        }
        if (address.address.startsWith('later') && tempFailures++ === 0) {
          callback(Object.assign(new Error('4.2.0 try again later'), { responseCode: 451 }));
          return;
        }
        callback();
      },
    });
    store = tempDb();
    const config = makeConfig(
      {
        recipients: [
          { role: 'owner', email: 'nobody@site.example' },
          { role: 'engineer', email: 'later@site.example' },
        ],
      },
      { smtp: { host: '127.0.0.1', port: smtp.port } },
    );
    dispatcher = new NotificationDispatcher({
      db: store.db,
      ...configAndSites(config),
      channels: { email: new SmtpEmailSender({ smtp: config.notify.smtp! }) },
      retry: { baseMs: 100, jitter: 0 },
    });
    addEvent(store.db, 'ev-mail-2');
    await dispatcher.start();
    await waitFor(
      () =>
        dispatcher!.list({ status: 'failed' }).length === 1 &&
        dispatcher!.list({ status: 'sent' }).length === 1,
      10_000,
      'one failed, one sent',
    );
    const failed = dispatcher.list({ status: 'failed' })[0]!;
    expect(failed).toMatchObject({ target: 'nobody@site.example', attempts: 1 });
    expect(failed.lastError).toMatch(/550/);
    const sent = dispatcher.list({ status: 'sent' })[0]!;
    expect(sent).toMatchObject({ target: 'later@site.example', attempts: 2 });
    expect(sent.lastError).toMatch(/451/);
    expect(smtp.messages.map((m) => m.to)).toEqual([['later@site.example']]);
  });
});

describe('emailChannel', () => {
  const config = makeConfig({
    timezone: 'America/Chicago',
    recipients: [{ role: 'officer', name: 'Town Officer', email: 'officer@town.example' }],
  });

  it("addresses the recipient by name, in the site's name and time zone, with the stored alert", async () => {
    const sent: EmailRequest[] = [];
    const channel = emailChannel({ send: async (req) => void sent.push(req) }, config, siteOfConfig(config));
    expect(await channel.send(makeDelivery({ kind: 'overdue', eventId: 'ev-9' }))).toEqual({ ok: true });
    expect(sent).toEqual([
      {
        to: 'officer@town.example',
        toName: 'Town Officer',
        kind: 'overdue',
        eventId: 'ev-9',
        alert: makeAlert(),
        siteName: 'Maple Ridge subdivision',
        timeZone: 'America/Chicago',
      },
    ]);
  });

  it("uses the gateway's time zone for a site without one, and no name for an unknown address", async () => {
    const sent: EmailRequest[] = [];
    const channel = emailChannel(
      { send: async (req) => void sent.push(req) },
      makeConfig(),
      siteOfConfig(makeConfig()),
    );
    await channel.send(makeDelivery({ target: 'someone@else.example' }));
    expect(sent[0]).toMatchObject({ to: 'someone@else.example', timeZone: 'America/New_York' });
    expect(sent[0]).not.toHaveProperty('toName');
  });

  it('without a sender, fails every delivery for good and says why', async () => {
    expect(await emailChannel(undefined, config, siteOfConfig(config)).send(makeDelivery())).toEqual({
      ok: false,
      permanent: true,
      unconfigured: true,
      message: 'no e-mail channel is configured (notify.smtp)',
    });
  });
});
