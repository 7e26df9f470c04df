import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_UPLOAD } from '../../gateway/src/api/plugins/imports.ts';
import { parseLoggerFile } from '../../gateway/src/import/formats/index.ts';
import { RAIN_DIR } from '../helpers/env.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { allPages } from '../helpers/pages.ts';

const run = promisify(execFile);
const RAIN = RAIN_DIR;
const TOKEN = 'import-engineer-token';
const FILE = `${RAIN}/hobo_quincemil_2017.csv`;

/** An independent reading of the HOBO file: tips from count increases, logger-event rows mark downloads. */
function independentStorms(text: string) {
  const tips: number[] = [];
  const events: number[] = [];
  let prev: number | undefined;
  for (const line of text.split(/\r?\n/)) {
    const m = /^(\d\d)\/(\d\d)\/(\d{4}) (\d\d):(\d\d):(\d\d),(\d*)/.exec(line);
    if (!m) continue;
    const t = Date.UTC(+m[3]!, +m[1]! - 1, +m[2]!, +m[4]!, +m[5]!, +m[6]!);
    if (m[7] === '') {
      events.push(t);
      continue;
    }
    const c = Number(m[7]);
    if (prev !== undefined) for (let k = 0; k < (c >= prev ? c - prev : c); k++) tips.push(t);
    prev = c;
  }
  const kept = tips.filter((t) => !events.some((e) => Math.abs(e - t) <= 10 * 60_000));
  const storms: number[] = [];
  let last = -Infinity;
  for (const t of kept) {
    if (t - last >= 6 * 3_600_000) storms.push(0);
    storms[storms.length - 1]!++;
    last = t;
  }
  return { tips: kept.length, events: storms.length, qualifying: storms.filter((n) => n >= 64).length };
}

const OTHER_FILES = [
  { file: 'hobo_burn_2022.csv', device: 'burn-hobo' },
  { file: 'campbell_burn22_rainevent_2022.dat', device: 'burn-campbell' },
  { file: 'campbell_cabin_precip_2022.dat', device: 'cabin-campbell' },
];

/** Storm events from tip times: split at dry gaps of 6 h or more; 64 tips of 0.2 mm reach 0.5 in. */
function splitStorms(times: number[]) {
  const sizes: number[] = [];
  let last = -Infinity;
  for (const t of [...times].sort((a, b) => a - b)) {
    if (t - last >= 6 * 3_600_000) sizes.push(0);
    sizes[sizes.length - 1]!++;
    last = t;
  }
  return { events: sizes.length, qualifying: sizes.filter((n) => n >= 64).length, tips: times.length };
}

describe('logger import through the running gateway', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({
      auth: {
        tokens: [
          { name: 'PE', role: 'engineer', tokenSha256: createHash('sha256').update(TOKEN).digest('hex') },
        ],
      },
      sites: [
        {
          id: 'quincemil',
          kind: 'construction',
          devices: [
            { id: 'hobo', kind: 'rain-gauge', inchesPerTip: 0.2 / 25.4 },
            ...OTHER_FILES.map((f) => ({
              id: f.device,
              kind: 'rain-gauge' as const,
              inchesPerTip: 0.2 / 25.4,
            })),
          ],
        },
      ],
    });
  });
  afterAll(async () => gw?.cleanup());

  it('imports the 5-month HOBO record and finds the same storms as an independent count', async () => {
    const want = independentStorms(readFileSync(FILE, 'utf8'));
    const { stdout } = await run(
      'npx',
      [
        'tsx',
        'gateway/src/import/cli.ts',
        '--site',
        'quincemil',
        '--device',
        'hobo',
        '--api',
        gw.httpUrl,
        '--token',
        TOKEN,
        '--utc-offset',
        '0',
        FILE,
      ],
      { maxBuffer: 1 << 24 },
    );
    const summary = JSON.parse(stdout) as { tips: number; stored: number };
    expect(summary.tips).toBe(want.tips);
    const storms = await allPages<{ tips: number; qualified: boolean; inspection: { status: string } }>(
      gw.httpUrl,
      '/api/storms?siteId=quincemil&from=2017-01-01T00:00:00Z&limit=500',
    );
    expect(storms.length).toBe(want.events);
    expect(storms.filter((s) => s.qualified).length).toBe(want.qualifying);
    expect(storms.reduce((a, s) => a + s.tips, 0)).toBe(want.tips);
    // No inspection was ever logged: every qualifying storm's inspection is missing, and each raised an alert.
    expect(storms.filter((s) => s.qualified).every((s) => s.inspection.status === 'missing')).toBe(true);
    const alerts = await allPages(gw.httpUrl, '/api/alerts?siteId=quincemil&rule=storm-inspection&limit=500');
    expect(alerts.length).toBe(want.qualifying);
  });

  it('a second import of the same file stores nothing', async () => {
    const res = await fetch(`${gw.httpUrl}/api/import?siteId=quincemil&deviceId=hobo&utcOffsetMinutes=0`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', authorization: `Bearer ${TOKEN}` },
      body: readFileSync(FILE, 'utf8'),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { stored: number }).stored).toBe(0);
  });

  it('refuses an import without an engineer token, and a file that is not a logger export', async () => {
    const anon = await fetch(`${gw.httpUrl}/api/import?siteId=quincemil&deviceId=hobo`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'x',
    });
    expect(anon.status).toBe(401);
    const junk = await fetch(`${gw.httpUrl}/api/import?siteId=quincemil&deviceId=hobo`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', authorization: `Bearer ${TOKEN}` },
      body: 'hello, world\nthis is not a logger file\n',
    });
    expect(junk.status).toBe(400);
    expect(((await junk.json()) as { error: string }).error).toBe('BAD_REQUEST');
  });

  it('refuses a file past the upload limit with a clear error, and the gateway keeps running', async () => {
    const line = '02/14/2017 22:07:19,1\n';
    const body = line.repeat(Math.ceil((MAX_UPLOAD + 1) / line.length));
    const res = await fetch(`${gw.httpUrl}/api/import?siteId=quincemil&deviceId=hobo`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', authorization: `Bearer ${TOKEN}` },
      body,
    });
    expect(res.status).toBe(413);
    const err = (await res.json()) as { error: string; message: string };
    expect(err.error).toBe('TOO_LARGE');
    expect(err.message).toContain('split it');
    expect((await fetch(`${gw.httpUrl}/api/health`)).ok).toBe(true);
  });

  for (const { file, device } of OTHER_FILES)
    it(`imports ${file}: the storms the rules find are the storms in its tips`, async () => {
      const text = readFileSync(join(RAIN, file), 'utf8');
      // The parser is checked against the raw text in test/import; here the pipeline is checked against it.
      const want = splitStorms(parseLoggerFile(text, { tipMm: 0.2 }).tips.map((t) => t.ts));
      const res = await fetch(`${gw.httpUrl}/api/import?siteId=quincemil&deviceId=${device}&name=${file}`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain', authorization: `Bearer ${TOKEN}` },
        body: text,
      });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { tips: number }).tips).toBe(want.tips);
      const storms = (
        await allPages<{ deviceId: string; tips: number; qualified: boolean }>(
          gw.httpUrl,
          '/api/storms?siteId=quincemil&from=2000-01-01T00:00:00Z&limit=500',
        )
      ).filter((s) => s.deviceId === device);
      expect(storms.length).toBe(want.events);
      expect(storms.filter((s) => s.qualified).length).toBe(want.qualifying);
      expect(storms.reduce((a, s) => a + s.tips, 0)).toBe(want.tips);
    });
});
