/**
 * Point 5: absurd data. CASE=jump: a gauge's cumulative counter jumps by 32,438,300 tips (324,383 in) in
 * 0.7 s: stored? alert raised? CASE=import: a 3 MB TOA5 upload whose rows run from now into 2062, through
 * POST /api/import, while /api/health is polled every 20 ms: readings stored, the latest source time, the
 * storm alerts opened, and the slowest health answer.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import mqtt from 'mqtt';
import { baseConfig, report, sleep, sqlCount, startChild, T } from './support.ts';

const which = process.env.CASE ?? 'jump';
const TOKEN = 'probe-engineer-token';
const gw = await startChild(
  baseConfig({
    auth: {
      tokens: [
        { name: 'PE', role: 'engineer', tokenSha256: createHash('sha256').update(TOKEN).digest('hex') },
      ],
    },
  }),
);
const alerts = async () =>
  (await (await fetch(`${gw.httpUrl}/api/alerts`)).json()) as Array<{ rule: string; dueAt: string }>;
try {
  if (which === 'jump') {
    const c = await mqtt.connectAsync(gw.mqttUrl, {
      clientId: 'maple-ridge/rg-1',
      username: 'maple-ridge/rg-1',
      password: 'pw-rg-1',
      reconnectPeriod: 0,
    });
    const now = Date.now() - 60_000;
    await c.publishAsync(T('rg-1'), JSON.stringify({ ts: now, seq: 1, rainTips: 100 }), { qos: 1 });
    const outcome = await c
      .publishAsync(T('rg-1'), JSON.stringify({ ts: now + 700, seq: 2, rainTips: 100 + 32_438_300 }), {
        qos: 1,
      })
      .then(
        () => 'acknowledged',
        (e: Error) => `refused: ${e.message}`,
      );
    await sleep(1000);
    c.end(true);
    const rej = (await (await fetch(`${gw.httpUrl}/api/rejections`)).json()) as Array<{
      reason: string;
      detail: string;
    }>;
    const a = await alerts();
    await gw.stop();
    report('absurd', {
      case: which,
      jumpPublish: outcome,
      storedReadings: await sqlCount(gw.dataDir, "SELECT COUNT(*) AS n FROM readings WHERE device_id='rg-1'"),
      alerts: a.map((x) => x.rule),
      rejection: rej[0] ? `${rej[0].reason}: ${rej[0].detail}` : null,
    });
  } else {
    const rows = Number(process.env.ROWS ?? 88_372);
    const start = Date.now() - 86_400_000;
    const step = Math.round((Date.parse('2062-06-01T00:00:00Z') - start) / rows);
    const fmt = (t: number) => new Date(t).toISOString().slice(0, 19).replace('T', ' ');
    const lines = [
      '"TOA5","Probe","CR6","1","CR6.Std.06.01","CPU:PROBE.CR6","1","Table3"',
      '"TIMESTAMP","RECORD","ID_5","RainEvent","Rain_mm_Tot"',
      '"TS","RN","","","inch"',
      '"","","Smp","Smp","Tot"',
    ];
    for (let i = 0; i < rows; i++) lines.push(`"${fmt(start + i * step)}",${i + 1},5,302,0.01`);
    // CASE=hobo: the real 5-month HOBO record instead (13,906 tips, 126 storms), imported and evaluated.
    const body =
      which === 'hobo'
        ? readFileSync(join(import.meta.dirname, '../fixtures/rain/hobo_quincemil_2017.csv'), 'utf8')
        : `${lines.join('\r\n')}\r\n`;
    let maxHealthMs = 0;
    let probes = 0;
    const healthErrors: string[] = [];
    let done = false;
    const poll = (async () => {
      while (!done) {
        const t = performance.now();
        await fetch(`${gw.httpUrl}/api/health`)
          .then((r) => r.arrayBuffer())
          .catch((e: Error) => {
            healthErrors.push(e.message);
          });
        maxHealthMs = Math.max(maxHealthMs, performance.now() - t);
        probes++;
        await sleep(20);
      }
    })();
    const t0 = performance.now();
    const device = which === 'hobo' ? 'rg-2' : 'rg-1';
    const res = await fetch(
      `${gw.httpUrl}/api/import?siteId=maple-ridge&deviceId=${device}&utcOffsetMinutes=0`,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'text/plain' },
        body,
      },
    ).catch((e: Error) => {
      throw new Error(`${e.message}; gateway alive: ${gw.alive()}; output: ${gw.output().slice(-1500)}`);
    });
    const summary = (await res.json()) as Record<string, unknown>;
    const importMs = Math.round(performance.now() - t0);
    done = true;
    await poll;
    const a = await alerts();
    await gw.stop();
    const maxTs = await sqlCount(gw.dataDir, "SELECT MAX(ts) AS n FROM readings WHERE device_id='rg-1'");
    report('absurd', {
      case: which,
      bytes: body.length,
      rows,
      status: res.status,
      stored: summary.stored,
      rejected: summary.rejected,
      latestStored: maxTs ? new Date(maxTs).toISOString() : null,
      stormAlerts: a.filter((x) => x.rule === 'storm-inspection').length,
      latestDue:
        a
          .map((x) => x.dueAt)
          .sort()
          .at(-1) ?? null,
      importMs,
      healthProbes: probes,
      maxHealthMs: Math.round(maxHealthMs),
      healthErrors: healthErrors.length,
    });
  }
} finally {
  await gw.stop();
}
