/**
 * The alerts pages' scenario, on a real gateway: a storm that rained on after it crossed the threshold
 * (its due time moved with every tip), an older storm never inspected (overdue), the routine 7-day
 * inspection, and a high-water alarm the panel still reports; an admin, Pat Officer, signs in.
 */
import mqtt, { type MqttClient } from 'mqtt';
import type { Page } from 'playwright-core';
import { type AlertJson, watchCsp } from '../helpers/browser.ts';
import { waitFor } from '../helpers/env.ts';
import { startTestGateway, type TestGateway, testHash } from '../helpers/gateway.ts';

export const OFFICER = { name: 'Pat Officer', email: 'pat@town.example', password: 'maple ridge storms' };
const MIN = 60_000;
const HOUR = 60 * MIN;

export interface Scenario {
  gw: TestGateway;
  clients: MqttClient[];
  /** An API read with the officer's session. */
  api<T>(path: string, init?: { method: string; body?: unknown }): Promise<T>;
  alerts(query: string): Promise<AlertJson[]>;
  close(): Promise<void>;
}

export async function startScenario(): Promise<Scenario> {
  const gw = await startTestGateway({
    sites: [
      {
        id: 'maple-ridge',
        name: 'Maple Ridge subdivision',
        kind: 'construction',
        devices: [
          { id: 'rg-1', kind: 'rain-gauge', inchesPerTip: 0.01, passwordHash: testHash('pw-rg-1') },
          { id: 'rg-2', kind: 'rain-gauge', inchesPerTip: 0.01, passwordHash: testHash('pw-rg-2') },
          { id: 'trap-1', kind: 'sediment-trap', designDepthIn: 24, passwordHash: testHash('pw-trap-1') },
        ],
      },
      {
        id: 'oak-lane',
        name: '12 Oak Lane',
        kind: 'alternative-system',
        devices: [
          { id: 'panel-1', kind: 'septic-panel', liquidDepthIn: 60, passwordHash: testHash('pw-panel-1') },
        ],
      },
    ],
    auth: {
      users: [
        {
          name: OFFICER.name,
          email: OFFICER.email,
          role: 'admin',
          passwordHash: testHash(OFFICER.password),
        },
      ],
    },
  });
  const clients: MqttClient[] = [];
  const seq = new Map<string, number>();
  const device = async (siteId: string, deviceId: string) => {
    const c = await mqtt.connectAsync(gw.mqttUrl, {
      clientId: `${siteId}/${deviceId}`,
      username: `${siteId}/${deviceId}`,
      password: `pw-${deviceId}`,
      reconnectPeriod: 0,
    });
    clients.push(c);
    return async (ts: number, values: Record<string, unknown>) => {
      const n = (seq.get(deviceId) ?? 0) + 1;
      seq.set(deviceId, n);
      await c.publishAsync(
        `sites/${siteId}/devices/${deviceId}/telemetry`,
        JSON.stringify({ ts, seq: n, ...values }),
        { qos: 1 },
      );
    };
  };

  let cookie = '';
  let csrf = '';
  const login = await fetch(`${gw.httpUrl}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: OFFICER.email, password: OFFICER.password }),
  });
  if (login.status !== 200) throw new Error(`sign-in refused: ${login.status} ${await login.text()}`);
  cookie = login.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  csrf = ((await login.json()) as { csrfToken?: string }).csrfToken ?? '';
  const api = async <T>(path: string, init?: { method: string; body?: unknown }): Promise<T> => {
    const res = await fetch(`${gw.httpUrl}${path}`, {
      method: init?.method ?? 'GET',
      headers: {
        cookie,
        ...(init?.body !== undefined ? { 'content-type': 'application/json', 'x-csrf-token': csrf } : {}),
      },
      ...(init?.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
    });
    if (!res.ok) throw new Error(`${init?.method ?? 'GET'} ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  };
  const alerts = (query: string) => api<AlertJson[]>(`/api/alerts?${query}`);

  const now = Date.now();
  // rg-2: a storm two days ago, never inspected: overdue.
  const rg2 = await device('maple-ridge', 'rg-2');
  await rg2(now - 50 * HOUR, { rainTips: 0 });
  await rg2(now - 49 * HOUR, { rainTips: 30 });
  await rg2(now - 48.5 * HOUR, { rainTips: 60 });
  // rg-1: one tip every 3 minutes: 0.5 in crossed at the 50th, then 12 more tips move the due time.
  const rg1 = await device('maple-ridge', 'rg-1');
  await rg1(now - 5 * HOUR, { rainTips: 0 });
  // The due time's moves of one slice of readings are one update: a look at the alerts between the two
  // halves commits the first, so the history shows two.
  for (let i = 1; i <= 62; i++) {
    await rg1(now - 4 * HOUR + i * 3 * MIN, { rainTips: i });
    if (i === 56) await alerts('siteId=maple-ridge');
  }
  // panel-1: the high-water float up for three minutes, and still up.
  const panel = await device('oak-lane', 'panel-1');
  for (let i = 0; i <= 3; i++) await panel(now - (3 - i) * MIN, { alarms: { highWater: true } });

  await waitFor(
    async () => {
      const storms = await alerts('siteId=maple-ridge&rule=storm-inspection');
      const rg1Alert = storms.find((a) => a.deviceId === 'rg-1');
      const moved = rg1Alert?.history.filter((e) => e.action === 'updated').length ?? 0;
      return storms.some((a) => a.deviceId === 'rg-2' && a.overdue) && moved >= 2;
    },
    20_000,
    'the storm alerts',
  );
  await waitFor(
    async () => (await alerts('siteId=oak-lane&rule=equipment-remedy')).length === 1,
    20_000,
    'the high-water alarm',
  );
  return {
    gw,
    clients,
    api,
    alerts,
    close: async () => {
      for (const c of clients) c.end(true);
      await gw.cleanup();
    },
  };
}

/** Signs the officer in on a page (a real session cookie), and collects its errors and CSP reports. */
export async function signIn(page: Page, base: string, errors: string[]): Promise<void> {
  page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console: ${m.text()}`);
  });
  watchCsp(page, errors);
  await page.goto(`${base}/#/signin`);
  await page.fill('#signin-email', OFFICER.email);
  await page.fill('#signin-password', OFFICER.password);
  await page.click('#signin-form button[type="submit"]');
  await page.waitForFunction(() => location.hash === '#/overview', null, { timeout: 20_000 });
  await page.waitForSelector('nav a[href="#/changes"]:not([hidden])', { state: 'attached' });
}
