import { describe, expect, it } from 'vitest';
import { routeEvent, routeRecipients } from '../../gateway/src/notify/routing.ts';
import { makeConfig } from './support.ts';

describe('routing', () => {
  const site = makeConfig({
    recipients: [
      { role: 'officer', email: 'officer@town.example' },
      { role: 'developer', email: 'dev@site.example', webhook: 'https://dev.example/hook' },
      { role: 'owner', email: 'owner@home.example' },
    ],
  }).sites[0]!;

  it('sends raise, overdue, extension and resolve to every recipient', () => {
    for (const kind of ['raise', 'overdue', 'extension', 'resolve'])
      expect(routeRecipients(site, kind, 'storm-inspection')).toHaveLength(4);
  });

  it('sends reminders only to the roles responsible for the rule', () => {
    expect(routeRecipients(site, 'reminder', 'storm-inspection')).toEqual([
      { channel: 'webhook', target: 'https://dev.example/hook' },
      { channel: 'email', target: 'dev@site.example' },
    ]);
    expect(routeRecipients(site, 'reminder', 'equipment-remedy')).toEqual([
      { channel: 'email', target: 'owner@home.example' },
    ]);
  });

  it('falls back to every recipient when no one holds a responsible role', () => {
    const officerOnly = makeConfig({ recipients: [{ role: 'officer', email: 'o@town.example' }] }).sites[0]!;
    expect(routeRecipients(officerOnly, 'reminder', 'field-remedy')).toEqual([
      { channel: 'email', target: 'o@town.example' },
    ]);
  });
});

describe('routeEvent', () => {
  const site = makeConfig({
    recipients: [
      { role: 'officer', email: 'officer@town.example' },
      { role: 'developer', webhook: 'https://dev.example/hook' },
    ],
  }).sites[0]!;
  const ev = { site_id: 'maple-ridge', rule: 'storm-inspection', kind: 'raise' };

  it('puts the MQTT topic first when the gateway has an MQTT channel, then the recipients', () => {
    expect(routeEvent(ev, site, true)).toEqual([
      { channel: 'mqtt', target: 'alerts/maple-ridge/storm-inspection' },
      { channel: 'email', target: 'officer@town.example' },
      { channel: 'webhook', target: 'https://dev.example/hook' },
    ]);
    expect(routeEvent(ev, site, false).map((t) => t.channel)).toEqual(['email', 'webhook']);
  });

  it('serves a stop-work order and its lifting by e-mail on the developer, the owner and the parties named', () => {
    const parties = makeConfig({
      recipients: [
        { role: 'officer', email: 'officer@town.example' },
        { role: 'developer', email: 'dev@site.example', webhook: 'https://dev.example/hook' },
        { role: 'owner', email: 'OWNER@home.example' },
      ],
    }).sites[0]!;
    const payload = JSON.stringify({
      id: 'stop-1',
      landowner: { name: 'Pat', address: '1 Elm St', email: 'owner@home.example' },
      developer: { name: 'Ridge LLC', address: '9 Main St', email: 'ridge@builders.example' },
    });
    const order = { site_id: 'maple-ridge', rule: '', kind: 'stop-work', payload };
    // No MQTT, no webhook, not the officer; the same address (any case) once.
    expect(routeEvent(order, parties, true)).toEqual([
      { channel: 'email', target: 'dev@site.example' },
      { channel: 'email', target: 'OWNER@home.example' },
      { channel: 'email', target: 'ridge@builders.example' },
    ]);
  });

  it('gives a site missing from the configuration its MQTT topic only', () => {
    expect(routeEvent(ev, undefined, true)).toEqual([
      { channel: 'mqtt', target: 'alerts/maple-ridge/storm-inspection' },
    ]);
    expect(routeEvent(ev, undefined, false)).toEqual([]);
  });
});
