/**
 * Photos that no account can use to exhaust the gateway or to reach another site's photos (issue 31),
 * against the real gateway: an upload over its site's or its account's quota is refused in words (413)
 * with nothing written; one that would take a small data disk (a tmpfs, test/helpers/disk.ts) below
 * storage.minFreeMb is refused before a byte is written (507), no temporary file left; an upload the
 * client abandons leaves no temporary file; the housekeeping removes a photo never cited once
 * photos.uncitedRetentionDays have passed (a restart with the clock moved on) and keeps a cited one; and a
 * photo cited by someone who neither uploaded it nor sees a site citing it is refused with the same words
 * as a photo not stored, in an inspection's findings and in a correction report.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Disk, freeMb, makeDisk } from '../helpers/disk.ts';
import { waitFor } from '../helpers/env.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { PASSWORD, peopleApi } from '../helpers/people.ts';
import { jpegBytes, postPhoto } from '../helpers/photos.ts';

const sha = (t: string | Uint8Array) => createHash('sha256').update(t).digest('hex');
const DAY = 86_400_000;
const sentence = /^[A-Z][^_{}]*[.!?]$/;
const insp = { authorization: 'Bearer tok-insp' };
const admin = { authorization: 'Bearer tok-admin' };
/** A JPEG of `kb` KB, unique by `tag`. */
const jpeg = (tag: string, kb: number) => Buffer.concat([jpegBytes(tag), Buffer.alloc(kb * 1024, 7)]);

const sites = [
  {
    id: 'maple-ridge',
    name: 'Maple Ridge',
    kind: 'construction',
    practices: [{ id: 'silt-north', label: 'Silt fence, north boundary', kind: 'silt-fence' }],
    landowner: { name: 'Pat Landowner', address: '1 Elm St, Chester NY' },
    developer: { name: 'Ridge Builders LLC', address: '9 Main St, Chester NY' },
    devices: [],
  },
  {
    id: 'birch-hill',
    name: 'Birch Hill',
    kind: 'construction',
    practices: [{ id: 'inlet', label: 'Inlet protection', kind: 'inlet-protection' }],
    devices: [],
  },
];
const tokens = [
  { name: 'Ada Admin', role: 'admin', tokenSha256: sha('tok-admin') },
  { name: 'Ian Inspector', role: 'inspector', tokenSha256: sha('tok-insp') },
];
/** Every file under the photos folder, temporary ones included. */
const photoFiles = (dataDir: string): string[] => {
  const dir = join(dataDir, 'photos');
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => d.name);
};
const metric = async (gw: TestGateway, line: string) => {
  const text = await (await fetch(`${gw.httpUrl}/metrics`, { headers: admin })).text();
  const m = text.split('\n').find((l) => l.startsWith(line));
  return m ? Number(m.split(' ').pop()) : 0;
};

describe('photo quotas', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({
      sites: sites as never,
      auth: { tokens: tokens as never },
      photos: { siteQuotaMb: 1, accountQuotaMb: 1.5 } as never,
    });
  });
  afterAll(async () => {
    await gw?.cleanup();
  });

  it("refuses an upload past its site's quota, in words, and writes nothing", async () => {
    expect((await postPhoto(gw.httpUrl, jpeg('a', 600), 'image/jpeg', insp)).status).toBe(200);
    const before = photoFiles(gw.dataDir);
    const over = await postPhoto(gw.httpUrl, jpeg('b', 600), 'image/jpeg', insp);
    expect(over.status).toBe(413);
    expect(over.body.error).toBe('PHOTO_QUOTA');
    expect(over.body.message).toMatch(sentence);
    expect(over.body.message).toMatch(/^Maple Ridge has 0\.6 MB of photos stored, and its limit is 1 MB/);
    expect(over.body.message).toMatch(
      /removed 7 days after they were sent; the gateway's administrator can raise/,
    );
    expect(photoFiles(gw.dataDir)).toEqual(before);
    expect(await metric(gw, 'gateway_photos_refused_total{reason="quota_site"}')).toBe(1);
  });

  it("refuses an upload past its account's quota, over every site", async () => {
    expect((await postPhoto(gw.httpUrl, jpeg('c', 600), 'image/jpeg', insp, 'birch-hill')).status).toBe(200);
    const before = photoFiles(gw.dataDir);
    const over = await postPhoto(gw.httpUrl, jpeg('d', 400), 'image/jpeg', insp, 'birch-hill');
    expect([over.status, over.body.error]).toEqual([413, 'PHOTO_QUOTA']);
    expect(over.body.message).toMatch(
      /^You have 1\.2 MB of photos stored, and the limit for one account is 1\.5 MB/,
    );
    expect(photoFiles(gw.dataDir)).toEqual(before);
  });

  it('asks for the site the photo is for, one the caller may see', async () => {
    const none = await fetch(`${gw.httpUrl}/api/photos`, {
      method: 'POST',
      headers: { ...insp, 'content-type': 'image/jpeg' },
      body: new Uint8Array(jpeg('e', 1)),
    });
    expect(none.status).toBe(400);
    const unknown = await postPhoto(gw.httpUrl, jpeg('e', 1), 'image/jpeg', insp, 'no-such-site');
    expect(unknown.status).toBe(404);
  });

  it('removes the temporary file of an upload the client abandons', async () => {
    const aborted = await metric(gw, 'gateway_photos_aborted_total');
    await new Promise<void>((resolve) => {
      const req = request(`${gw.httpUrl}/api/photos?siteId=birch-hill`, {
        method: 'POST',
        headers: { ...admin, 'content-type': 'image/jpeg', 'content-length': String(400 * 1024) },
      });
      req.on('error', () => resolve());
      req.write(jpeg('abandoned', 100), () => setTimeout(() => req.destroy(), 50));
    });
    await waitFor(async () => (await metric(gw, 'gateway_photos_aborted_total')) === aborted + 1);
    // The file is removed as the upload ends (asynchronously, just after it is counted).
    await waitFor(() => photoFiles(gw.dataDir).every((n) => !n.endsWith('.tmp')), 5000, 'no .tmp file');
    expect(readdirSync(join(gw.dataDir, 'photos', '.incoming'))).toEqual([]);
  });
});

describe('a photo upload on a nearly full data disk', () => {
  let disk: Disk;
  let gw: TestGateway | undefined;
  beforeAll(() => {
    disk = makeDisk(48);
  });
  afterAll(async () => {
    await gw?.cleanup();
    disk?.dispose();
  });

  it('is refused before anything is written, and leaves no temporary file', async () => {
    const dataDir = join(disk.dir, 'data');
    mkdirSync(dataDir);
    // The store is writable (the free space is above the minimum), but not by an 8 MB photo's worth.
    const minFreeMb = Math.floor(freeMb(disk.dir)) - 8;
    gw = await startTestGateway(
      { sites: sites as never, auth: { tokens: tokens as never }, storage: { minFreeMb } as never },
      { dataDir },
    );
    const free = freeMb(disk.dir);
    const r = await postPhoto(gw.httpUrl, jpeg('big', 8 * 1024), 'image/jpeg', insp);
    expect(r.status).toBe(507);
    expect(r.body.error).toBe('PHOTO_NO_SPACE');
    expect(r.body.message).toMatch(sentence);
    expect(r.body.message).toMatch(/^The gateway's disk is nearly full \(.* MB free; it keeps .* MB free/);
    expect(photoFiles(dataDir)).toEqual([]);
    expect(Math.abs(freeMb(disk.dir) - free)).toBeLessThan(1);
    // A small one still fits, and the store still takes writes.
    expect((await postPhoto(gw.httpUrl, jpeg('small', 100), 'image/jpeg', insp)).status).toBe(200);
    expect(await metric(gw, 'gateway_photos_refused_total{reason="no_space"}')).toBe(1);
  });
});

describe('photos as evidence, not keys; retention of those never cited', () => {
  let clock = Date.parse('2026-06-10T14:00:00Z');
  let gw: TestGateway;
  let dataDir: string;
  let dana: Record<string, string>;
  let bo: Record<string, string>;
  const start = async (dir?: string) =>
    startTestGateway(
      { sites: sites as never, auth: { tokens: tokens as never } },
      { now: () => clock, ...(dir ? { dataDir: dir } : {}) },
    );
  beforeAll(async () => {
    gw = await start();
    dataDir = gw.dataDir;
    const api = peopleApi(gw.httpUrl, 'tok-admin');
    for (const [name, email, site] of [
      ['Dana Developer', 'dana@maple.example', 'maple-ridge'],
      ['Bo Builder', 'bo@birch.example', 'birch-hill'],
    ] as const) {
      const r = await api.call(
        'POST',
        '/api/users',
        { name, email, role: 'owner', password: PASSWORD, sites: [site] },
        api.admin,
      );
      expect(r.status).toBe(201);
    }
    dana = (await api.signIn('dana@maple.example')).write;
    bo = (await api.signIn('bo@birch.example')).write;
  });
  afterAll(async () => {
    await gw?.cleanup();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const inspect = (siteId: string, practice: string, photos: string[], headers: Record<string, string>) =>
    fetch(`${gw.httpUrl}/api/inspections`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({
        siteId,
        at: new Date(clock - 3_600_000).toISOString(),
        inspector: 'Someone',
        kind: 'routine',
        findings: [{ practice, status: 'maintenance', note: '', photos }],
      }),
    });
  let birchPhoto: string;

  it("refuses another site's photo with the words for a photo not stored; its uploader and its site's people may cite it", async () => {
    const up = await postPhoto(gw.httpUrl, jpeg('birch inlet', 2), 'image/jpeg', bo, 'birch-hill');
    expect(up.status).toBe(200);
    birchPhoto = String(up.body.sha256);
    const stolen = await inspect('maple-ridge', 'silt-north', [birchPhoto], dana);
    const never = await inspect('maple-ridge', 'silt-north', [sha('never stored')], dana);
    expect(stolen.status).toBe(400);
    const [a, b] = [await stolen.json(), await never.json()];
    expect(a).toEqual(b);
    expect((a as { error: string }).error).toBe('UNKNOWN_PHOTO');
    // An inspector who sees every site did not upload it and no record cites it yet: refused the same.
    expect(await (await inspect('birch-hill', 'inlet', [birchPhoto], insp)).json()).toEqual(
      await (await inspect('birch-hill', 'inlet', [sha('never stored')], insp)).json(),
    );
    // Its uploader cites it; then the people who may see Birch Hill may, Maple Ridge's owner still not.
    expect((await inspect('birch-hill', 'inlet', [birchPhoto], bo)).status).toBe(201);
    expect((await inspect('birch-hill', 'inlet', [birchPhoto], insp)).status).toBe(201);
    expect(await (await inspect('maple-ridge', 'silt-north', [birchPhoto], dana)).json()).toEqual(b);
  });

  it('refuses it in a correction report with the same words as a photo not stored', async () => {
    const issued = await fetch(`${gw.httpUrl}/api/violations`, {
      method: 'POST',
      headers: { ...insp, 'content-type': 'application/json' },
      body: JSON.stringify({
        siteId: 'maple-ridge',
        nature: 'Silt fence along the north boundary is down.',
        remedy: 'Re-install the silt fence.',
        remedyDueAt: new Date(clock + 7 * DAY).toISOString(),
      }),
    });
    expect(issued.status).toBe(201);
    const { id } = (await issued.json()) as { id: string };
    const correct = (photos: string[]) =>
      fetch(`${gw.httpUrl}/api/violations/${id}/corrected`, {
        method: 'POST',
        headers: { ...dana, 'content-type': 'application/json' },
        body: JSON.stringify({ note: 'Fence re-installed.', photos }),
      });
    const stolen = await correct([birchPhoto]);
    expect(stolen.status).toBe(400);
    expect(await stolen.json()).toEqual(await (await correct([sha('never stored')])).json());
    const own = await postPhoto(gw.httpUrl, jpeg('maple fence', 2), 'image/jpeg', dana);
    expect((await correct([String(own.body.sha256)])).status).toBe(200);
  });

  it('removes a photo never cited after the retention, and keeps the cited ones', async () => {
    const loose = await postPhoto(gw.httpUrl, jpeg('never cited', 2), 'image/jpeg', dana);
    const looseHash = String(loose.body.sha256);
    const file = (h: string) => join(dataDir, 'photos', h.slice(0, 2), h);
    expect(existsSync(file(looseHash))).toBe(true);
    await gw.stop();
    // Six days on: kept.
    clock += 6 * DAY;
    gw = await start(dataDir);
    expect(existsSync(file(looseHash))).toBe(true);
    expect(await metric(gw, 'gateway_photos_removed_total')).toBe(0);
    await gw.stop();
    // Eight days on: the housekeeping (at start, then hourly) removes it, file and rows.
    clock += 2 * DAY;
    gw = await start(dataDir);
    await waitFor(async () => (await metric(gw, 'gateway_photos_removed_total')) === 1);
    expect(await metric(gw, 'gateway_photos_removed_bytes_total')).toBe(loose.body.bytes);
    expect(existsSync(file(looseHash))).toBe(false);
    expect(existsSync(file(birchPhoto))).toBe(true);
    const db = new Database(join(dataDir, 'gateway.db'), { readonly: true });
    try {
      const count = (h: string) =>
        db
          .prepare(
            'SELECT (SELECT COUNT(*) FROM photos WHERE sha256 = ?) + (SELECT COUNT(*) FROM photo_uploads WHERE sha256 = ?) AS n',
          )
          .get(h, h) as { n: number };
      expect(count(looseHash).n).toBe(0);
      expect(count(birchPhoto).n).toBeGreaterThan(1);
    } finally {
      db.close();
    }
    // The cited photo is still served to its site's people.
    const got = await fetch(`${gw.httpUrl}/api/photos/${birchPhoto}`, { headers: admin });
    expect(got.status).toBe(200);
  });
});
