/**
 * The optional parts in GET /api/health and in the start-up log: PDF printing, e-mail, InfluxDB and the
 * copies of the checkpoints off the box, each available or not, and why, in words.
 */
import { createHash } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { capabilities } from '../../gateway/src/capabilities.ts';
import type { Log } from '../../gateway/src/pipeline.ts';
import { CHROMIUM_CANDIDATES } from '../../gateway/src/reports/pdf.ts';
import type { Health } from '../../shared/src/api/system.ts';
import { startTestGateway, testConfigInput } from '../helpers/gateway.ts';

const bare = {
  reports: { chromium: undefined },
  notify: {},
  influx: {},
  mqtt: {},
  evidence: { witnesses: [], digestTo: [] },
} as unknown as Parameters<typeof capabilities>[0];

const VIEWER = 'tok-capabilities-viewer';
const auth = {
  tokens: [
    {
      name: 'Vera Viewer',
      role: 'viewer' as const,
      tokenSha256: createHash('sha256').update(VIEWER).digest('hex'),
    },
  ],
};
const health = async (url: string) =>
  (await (
    await fetch(`${url}/api/health`, { headers: { authorization: `Bearer ${VIEWER}` } })
  ).json()) as Health;

const byName = (list: ReturnType<typeof capabilities>) => Object.fromEntries(list.map((c) => [c.name, c]));

describe('capabilities', () => {
  it('says each part is missing, why, and what would make it, when nothing is set', () => {
    const c = byName(capabilities(bare, [], () => false));
    expect(Object.keys(c)).toEqual(['pdf', 'email', 'influxdb', 'offBox']);
    for (const x of Object.values(c)) expect(x.available, x.name).toBe(false);
    expect(c.pdf!.words).toContain(CHROMIUM_CANDIDATES[0]);
    expect(c.pdf!.words).toMatch(/install Debian's chromium package or set reports\.chromium/);
    expect(c.email!.words).toMatch(/no mail server is set \(notify\.smtp\)/);
    expect(c.influxdb!.words).toMatch(/none is set \(influx\.url\)/);
    expect(c.offBox!.words).toMatch(/No copy of the signed checkpoints is kept off this box/);
    for (const x of Object.values(c)) expect(x.words).not.toMatch(/undefined|\[object/);
  });

  it('says what works, and where, without the credentials in a URL', () => {
    const config = {
      ...bare,
      reports: { chromium: '/opt/chromium' },
      notify: { smtp: { host: 'mail.town.example', port: 587 } },
      influx: { url: 'http://user:secret@influx:8086/x' },
      evidence: { witnesses: [{ url: 'https://witness.example/add' }], digestTo: ['smo@town.example'] },
    } as unknown as Parameters<typeof capabilities>[0];
    const c = byName(capabilities(config, [{ name: 'influxdb', ok: true }], (p) => p === '/opt/chromium'));
    for (const x of Object.values(c)) expect(x.available, x.name).toBe(true);
    expect(c.pdf!.words).toContain('/opt/chromium');
    expect(c.email!.words).toContain('mail.town.example, port 587');
    expect(c.influxdb!.words).toContain('http://influx:8086');
    expect(JSON.stringify(c)).not.toContain('secret');
    expect(c.offBox!.words).toMatch(
      /InfluxDB, the witness at https:\/\/witness\.example, a daily e-mail digest/,
    );
    // The configured Chromium gone, and InfluxDB not answering.
    const none = byName(
      capabilities(config, [{ name: 'influxdb', ok: false, detail: 'refused' }], () => false),
    );
    expect(none.pdf!.words).toMatch(/no Chromium at \/opt\/chromium/);
    expect(none.influxdb).toMatchObject({ available: false });
    expect(none.influxdb!.words).toMatch(
      /not taking the readings \(refused\); they wait in the gateway's store/,
    );
  });
});

describe('a real gateway', () => {
  const dir = mkdtempSync(join(tmpdir(), 'capabilities-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('lists them in /api/health and logs at start the ones missing', async () => {
    // A stand-in Chromium that exists: the gateway only looks for it here.
    const fake = join(dir, 'chromium');
    writeFileSync(fake, '#!/bin/sh\nexit 1\n');
    chmodSync(fake, 0o755);
    const said: string[] = [];
    const log: Log = {
      info: (obj, msg) => said.push(typeof obj === 'string' ? obj : (msg ?? '')),
      debug: () => {},
      error: () => {},
      warn: () => {},
    };
    const gw = await startTestGateway({ ...testConfigInput(), auth, reports: { chromium: fake } }, { log });
    try {
      const h = await health(gw.httpUrl);
      const c = byName(h.capabilities);
      expect(c.pdf).toMatchObject({ available: true });
      expect(c.pdf!.words).toContain(fake);
      expect(c.email!.available).toBe(false);
      expect(c.influxdb!.available).toBe(false);
      expect(said.some((w) => /^Printing reports and notices to PDF/.test(w))).toBe(false);
      expect(said).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/^Sending e-mail: not available\. No e-mail is sent/),
          expect.stringMatching(/^Copying readings to InfluxDB: not available\./),
        ]),
      );
    } finally {
      await gw.cleanup();
    }
    const none = await startTestGateway({
      ...testConfigInput(),
      auth,
      reports: { chromium: join(dir, 'none') },
    });
    try {
      const h = await health(none.httpUrl);
      expect(byName(h.capabilities).pdf).toMatchObject({ available: false });
    } finally {
      await none.cleanup();
    }
  });
});
