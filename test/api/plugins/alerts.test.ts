/** The alert endpoints through the real HTTP API: refusals answer with the alert codes of the catalogue. */
import { createHash } from 'node:crypto';
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatLong } from '../../../shared/src/time.ts';
import { waitFor } from '../../helpers/env.ts';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';

const sha = (t: string) => createHash('sha256').update(t).digest('hex');
const TOKENS = { inspector: 'tok-inspector', engineer: 'tok-engineer' };

const AUTH = {
  tokens: [
    { name: 'Ida Inspector', role: 'inspector' as const, tokenSha256: sha(TOKENS.inspector) },
    { name: 'Eve Engineer PE', role: 'engineer' as const, tokenSha256: sha(TOKENS.engineer) },
  ],
};

/** The first alert of a rule, once there is one. */
const firstAlert = (gw: TestGateway, rule: string, what: string) =>
  waitFor(
    async () => ((await (await fetch(`${gw.httpUrl}/api/alerts?rule=${rule}`)).json()) as Alert[])[0],
    10_000,
    what,
  );

interface Alert {
  id: string;
  status: string;
  dueAt: string;
  history: Array<{ action: string }>;
}

describe('POST /api/alerts/{id}/extend and /resolve', () => {
  let gw: TestGateway;
  let storm: Alert;
  const post = (path: string, role: keyof typeof TOKENS, body?: unknown) =>
    fetch(`${gw.httpUrl}${path}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${TOKENS[role]}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  const alert = async (id: string) => (await (await fetch(`${gw.httpUrl}/api/alerts/${id}`)).json()) as Alert;

  beforeAll(async () => {
    gw = await startTestGateway({ auth: AUTH });
    // A 0.6 in storm an hour ago, one tip a minute: a storm-inspection alert due 24 h after the rain.
    const t0 = Date.now() - 3_600_000;
    const c = await mqtt.connectAsync(gw.mqttUrl, {
      clientId: 'maple-ridge/rg-1',
      username: 'maple-ridge/rg-1',
      password: 'pw-rg-1',
    });
    for (let i = 0; i <= 60; i++)
      await c.publishAsync(
        'sites/maple-ridge/devices/rg-1/telemetry',
        JSON.stringify({ ts: t0 + i * 60_000, seq: i, rainTips: i }),
        { qos: 1 },
      );
    await c.endAsync();
    storm = await firstAlert(gw, 'storm-inspection', 'the storm alert');
  });
  afterAll(async () => gw?.cleanup());

  it('answers BAD_EXTENSION to an extension of the 24-hour storm inspection, which the law gives none', async () => {
    const newDueAt = new Date(Date.parse(storm.dueAt) + 48 * 3_600_000).toISOString();
    const res = await post(`/api/alerts/${storm.id}/extend`, 'engineer', {
      newDueAt,
      engineer: 'Eve Engineer PE',
      letterRef: 'L-2026-200',
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: string; message: string };
    expect(body.error).toBe('BAD_EXTENSION');
    expect(body.message).toMatch(/storm-inspection rule allows no extension/);
    const after = await alert(storm.id);
    expect(after.dueAt).toBe(storm.dueAt);
    expect(after.history.some((h) => h.action === 'extended')).toBe(false);
    expect(await (await fetch(`${gw.httpUrl}/api/extensions`)).json()).toEqual([]);
  });

  it("answers the alert with its evidence in the rule's words, times in the site's zone", async () => {
    const one = (await (await fetch(`${gw.httpUrl}/api/alerts/${storm.id}`)).json()) as Alert & {
      evidence: Record<string, string>;
      evidenceText: Array<{ label: string; text: string }>;
    };
    const line = (label: string) => one.evidenceText.find((l) => l.label === label)?.text ?? '';
    expect(line('Storm')).toMatch(
      /^0\.60 in \(60 tips of 0\.01 in\) at rain gauge rg-1, .+ E[SD]T to .+ E[SD]T/,
    );
    expect(line('Threshold')).toContain(
      `crossed 0.5 in (50 tips) at ${formatLong(Date.parse(one.evidence.thresholdAt!), 'America/New_York')}`,
    );
    expect(line('Inspection due')).toMatch(
      /\(24 h after the (rain ended|last tip; it moves while it still rains)\)$/,
    );
    // No raw key, no raw value: the keys the rule does not tell get labels too.
    const words = JSON.stringify(one.evidenceText);
    expect(words).not.toMatch(
      /dueAt|thresholdAt|crossingReceivedAt|inchesPerTip|null|undefined|\d{4}-\d{2}-\d{2}T/,
    );
    // The list answers with the words as well; an alert of no alarm input has no alarm state.
    const [listed] = (await (await fetch(`${gw.httpUrl}/api/alerts?rule=storm-inspection`)).json()) as Array<
      typeof one & { alarm?: unknown }
    >;
    expect(listed?.evidenceText).toEqual(one.evidenceText);
    expect(listed?.alarm).toBeUndefined();
  });

  it('answers NOTE_REQUIRED to a resolve without a note, with an empty one or a blank one', async () => {
    for (const body of [undefined, {}, { note: '' }, { note: '   ' }]) {
      const res = await post(`/api/alerts/${storm.id}/resolve`, 'inspector', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(((await res.json()) as { error: string }).error).toBe('NOTE_REQUIRED');
    }
    expect((await alert(storm.id)).status).toBe('open');
    const ok = await post(`/api/alerts/${storm.id}/resolve`, 'inspector', {
      note: 'inspected, silt fence ok',
    });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as Alert).status).toBe('resolved');
  });
});

describe('dates the API takes are bounded: an inspection within five years, an extension within a year', () => {
  let gw: TestGateway;
  let remedy: Alert;
  const post = (path: string, role: keyof typeof TOKENS, body: unknown) =>
    fetch(`${gw.httpUrl}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKENS[role]}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const refused = async (res: Response) => {
    const body = (await res.json()) as { error: string; message: string };
    return { status: res.status, error: body.error, message: body.message };
  };

  beforeAll(async () => {
    gw = await startTestGateway({ auth: AUTH });
    // The pump alarm of an alternative system held for two minutes: a 5-day remedy, which a letter may extend.
    const c = await mqtt.connectAsync(gw.mqttUrl, {
      clientId: 'oak-lane/panel-1',
      username: 'oak-lane/panel-1',
      password: 'pw-panel-1',
    });
    const now = Date.now();
    for (const ts of [now - 3 * 60_000, now - 60_000])
      await c.publishAsync(
        'sites/oak-lane/devices/panel-1/telemetry',
        JSON.stringify({ ts, alarms: { pump: true } }),
        { qos: 1 },
      );
    await c.endAsync();
    remedy = await firstAlert(gw, 'equipment-remedy', 'the remedy alert');
  });
  afterAll(async () => gw?.cleanup());

  it('says whether the device still reports the alarm, and tells the alarm in words', async () => {
    const one = (await (await fetch(`${gw.httpUrl}/api/alerts/${remedy.id}`)).json()) as Alert & {
      alarm?: { input: string; active: boolean };
      evidenceText: Array<{ label: string; text: string }>;
    };
    expect(one.alarm).toEqual({ input: 'pump', active: true });
    expect(one.evidenceText.find((l) => l.label === 'Alarm')?.text).toMatch(
      /^Pump since .+ E[SD]T \(it counts once it has held for 60 s\)$/,
    );
    expect(one.evidenceText.find((l) => l.label === 'Remedy due')?.text).toMatch(
      /\(within 5 days of the alarm's start\)$/,
    );
  });

  it('refuses an inspection dated 1900 or six years ago with BAD_INSPECTION; takes one of last year', async () => {
    const year = 365 * 86_400_000;
    const inspection = (at: string) => ({
      siteId: 'maple-ridge',
      at,
      inspector: 'I. Inspector',
      kind: 'routine',
      notes: 'Walked the site.',
    });
    for (const at of ['1900-01-01T00:00:00Z', new Date(Date.now() - 6 * year).toISOString()]) {
      const r = await refused(await post('/api/inspections', 'inspector', inspection(at)));
      expect(r, at).toMatchObject({ status: 400, error: 'BAD_INSPECTION' });
      expect(r.message).toMatch(/last five years/);
    }
    expect(await (await fetch(`${gw.httpUrl}/api/inspections?siteId=maple-ridge`)).json()).toEqual([]);
    const ok = await post(
      '/api/inspections',
      'inspector',
      inspection(new Date(Date.now() - year).toISOString()),
    );
    expect(ok.status).toBe(201);
  });

  it('refuses an extension to 9999-12-31, or more than a year after the deadline, with BAD_EXTENSION', async () => {
    const due = Date.parse(remedy.dueAt);
    const letter = (newDueAt: string) => ({ newDueAt, engineer: 'Eve Engineer PE', letterRef: 'L-2026-300' });
    for (const newDueAt of ['9999-12-31T00:00:00Z', new Date(due + 366 * 86_400_000).toISOString()]) {
      const r = await refused(await post(`/api/alerts/${remedy.id}/extend`, 'engineer', letter(newDueAt)));
      expect(r, newDueAt).toMatchObject({ status: 400, error: 'BAD_EXTENSION' });
      expect(r.message).toMatch(/at most a year after/);
    }
    // Earlier than the deadline: refused as before.
    const early = await refused(
      await post(
        `/api/alerts/${remedy.id}/extend`,
        'engineer',
        letter(new Date(due - 3_600_000).toISOString()),
      ),
    );
    expect(early).toMatchObject({ status: 400, error: 'BAD_EXTENSION' });
    expect(await (await fetch(`${gw.httpUrl}/api/extensions`)).json()).toEqual([]);
    // Within the year: taken; and a second letter is still bounded by the deadline the rule set.
    const ok = await post(
      `/api/alerts/${remedy.id}/extend`,
      'engineer',
      letter(new Date(due + 300 * 86_400_000).toISOString()),
    );
    expect(ok.status).toBe(200);
    const again = await refused(
      await post(
        `/api/alerts/${remedy.id}/extend`,
        'engineer',
        letter(new Date(due + 400 * 86_400_000).toISOString()),
      ),
    );
    expect(again).toMatchObject({ status: 400, error: 'BAD_EXTENSION' });
  });
});
