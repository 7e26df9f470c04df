/**
 * Photos over HTTP against the real gateway: stored under their SHA-256 in the data directory and the
 * store, the same photo again answered the same; refused (in words, and counted) when the type is not
 * accepted, the bytes are not what they are declared as, the body is empty or too large, or the caller may
 * not record inspections; served only to the person who stored it until an inspection cites it, then to
 * the people of that site, and to nobody else (404).
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PHOTO_MAX_BYTES } from '../../../shared/src/api/findings.ts';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { PASSWORD, peopleApi } from '../../helpers/people.ts';
import { jpegBytes, PNG_1X1, postPhoto, webpBytes } from '../../helpers/photos.ts';

const sha = (t: string | Uint8Array) => createHash('sha256').update(t).digest('hex');
const NOW = Date.parse('2026-06-10T14:00:00Z');
const sentence = /^[A-Z][^_{}]*[.!?]$/;

describe('photos', () => {
  let gw: TestGateway;
  let api: ReturnType<typeof peopleApi>;
  const bearer = (t: string) => ({ authorization: `Bearer ${t}` });
  let mapleOwner: Record<string, string>;
  let mapleOwnerRead: Record<string, string>;
  let birchOwnerRead: Record<string, string>;

  beforeAll(async () => {
    gw = await startTestGateway(
      {
        sites: [
          {
            id: 'maple-ridge',
            name: 'Maple Ridge',
            kind: 'construction',
            practices: [{ id: 'silt-north', label: 'Silt fence, north boundary', kind: 'silt-fence' }],
            devices: [],
          },
          { id: 'birch-hill', name: 'Birch Hill', kind: 'construction', devices: [] },
        ],
        auth: {
          tokens: [
            { name: 'Ada Admin', role: 'admin', tokenSha256: sha('tok-admin') },
            { name: 'Val Viewer', role: 'viewer', tokenSha256: sha('tok-viewer') },
            { name: 'Ian Inspector', role: 'inspector', tokenSha256: sha('tok-insp') },
          ],
        },
      },
      { now: () => NOW },
    );
    api = peopleApi(gw.httpUrl, 'tok-admin');
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
    const dana = await api.signIn('dana@maple.example');
    mapleOwner = dana.write;
    mapleOwnerRead = { cookie: dana.cookie };
    birchOwnerRead = { cookie: (await api.signIn('bo@birch.example')).cookie };
  });
  afterAll(async () => {
    await gw?.cleanup();
  });

  const metric = async (line: string) => {
    const text = await (await fetch(`${gw.httpUrl}/metrics`, { headers: bearer('tok-admin') })).text();
    const m = text.split('\n').find((l) => l.startsWith(line));
    return m ? Number(m.split(' ').pop()) : 0;
  };
  const getPhoto = (hash: string, headers: Record<string, string> = {}) =>
    fetch(`${gw.httpUrl}/api/photos/${hash}`, { headers });

  it('stores a photo under its hash, on disk and in the store, and answers the same photo the same', async () => {
    const r = await postPhoto(gw.httpUrl, PNG_1X1, 'image/png', bearer('tok-insp'));
    expect(r.status).toBe(200);
    const hash = sha(PNG_1X1);
    expect(r.body).toEqual({ sha256: hash, bytes: PNG_1X1.length, type: 'image/png' });
    const file = join(gw.dataDir, 'photos', hash.slice(0, 2), hash);
    expect(readFileSync(file).equals(PNG_1X1)).toBe(true);
    const db = new Database(join(gw.dataDir, 'gateway.db'), { readonly: true });
    try {
      expect(db.prepare('SELECT * FROM photos WHERE sha256 = ?').get(hash)).toEqual({
        sha256: hash,
        type: 'image/png',
        bytes: PNG_1X1.length,
        stored_at: NOW,
        stored_by: 'Ian Inspector',
      });
    } finally {
      db.close();
    }
    const again = await postPhoto(gw.httpUrl, PNG_1X1, 'image/png', mapleOwner);
    expect(again).toEqual(r);
    const webp = await postPhoto(gw.httpUrl, webpBytes('w1'), 'image/webp', bearer('tok-insp'));
    expect(webp.status).toBe(200);
    expect(webp.body.type).toBe('image/webp');
    expect(await metric('gateway_photos_stored_total')).toBe(2);
  });

  it('refuses, in words and counted, what is not an accepted photo', async () => {
    const jpeg = 'image/jpeg';
    const asJpeg = await postPhoto(gw.httpUrl, PNG_1X1, jpeg, bearer('tok-insp'));
    expect(asJpeg.status).toBe(400);
    expect(asJpeg.body.error).toBe('PHOTO_MISMATCH');
    expect(asJpeg.body.message).toBe(
      'The file is declared as a JPEG photo but it is a PNG image: send it again as what it is.',
    );
    const text = await postPhoto(gw.httpUrl, Buffer.from('hello, not an image'), 'image/png', mapleOwner);
    expect(text.status).toBe(400);
    expect(text.body.error).toBe('PHOTO_MISMATCH');
    expect(text.body.message).toMatch(/it is not an image/);
    const gif = await postPhoto(gw.httpUrl, Buffer.from('GIF89a....'), 'image/gif', bearer('tok-insp'));
    expect(gif.status).toBe(415);
    expect(gif.body.error).toBe('PHOTO_TYPE');
    const json = await postPhoto(gw.httpUrl, Buffer.from('{"a":1}'), 'application/json', bearer('tok-insp'));
    expect([json.status, json.body.error]).toEqual([415, 'PHOTO_TYPE']);
    const empty = await postPhoto(gw.httpUrl, Buffer.alloc(0), jpeg, bearer('tok-insp'));
    expect(empty.status).toBe(400);
    const big = Buffer.concat([jpegBytes('big'), Buffer.alloc(PHOTO_MAX_BYTES)]);
    const large = await postPhoto(gw.httpUrl, big, jpeg, bearer('tok-insp'));
    expect(large.status).toBe(413);
    expect(large.body.error).toBe('TOO_LARGE');
    expect(large.body.message).toBe(
      'The photo is larger than 10 MB: send a smaller one (a lower resolution).',
    );
    for (const r of [asJpeg, text, gif, json, empty, large]) expect(String(r.body.message)).toMatch(sentence);
    expect(await metric('gateway_photos_refused_total{reason="mismatch"}')).toBe(2);
    expect(await metric('gateway_photos_refused_total{reason="type"}')).toBe(2);
    expect(await metric('gateway_photos_refused_total{reason="too_large"}')).toBe(1);
    expect(await metric('gateway_photos_refused_total{reason="empty"}')).toBe(1);
    // None of them was kept.
    expect(existsSync(join(gw.dataDir, 'photos', sha(big).slice(0, 2), sha(big)))).toBe(false);
  });

  it('takes photos only from people who may record inspections', async () => {
    const viewer = await postPhoto(gw.httpUrl, jpegBytes('v'), 'image/jpeg', bearer('tok-viewer'));
    expect([viewer.status, viewer.body.error]).toEqual([403, 'FORBIDDEN']);
    const nobody = await postPhoto(gw.httpUrl, jpegBytes('n'), 'image/jpeg', {});
    expect([nobody.status, nobody.body.error]).toEqual([401, 'UNAUTHORIZED']);
  });

  it('serves a photo to whoever stored it until an inspection cites it, then to the people of its site', async () => {
    const bytes = jpegBytes('silt fence torn');
    const stored = await postPhoto(gw.httpUrl, bytes, 'image/jpeg', mapleOwner);
    const hash = String(stored.body.sha256);
    const own = await getPhoto(hash, mapleOwnerRead);
    expect(own.status).toBe(200);
    expect(own.headers.get('content-type')).toBe('image/jpeg');
    expect(own.headers.get('cache-control')).toBe('private, max-age=31536000, immutable');
    expect(own.headers.get('x-content-type-options')).toBe('nosniff');
    expect(Buffer.from(await own.arrayBuffer()).equals(bytes)).toBe(true);
    // Not cited yet: nobody else, not even an admin or the other site's owner, learns it exists.
    for (const headers of [bearer('tok-admin'), bearer('tok-insp'), birchOwnerRead, {}]) {
      const r = await getPhoto(hash, headers);
      expect(r.status).toBe(404);
      expect(((await r.json()) as { error: string }).error).toBe('NOT_FOUND');
    }
    const inspected = await api.call(
      'POST',
      '/api/inspections',
      {
        siteId: 'maple-ridge',
        at: new Date(NOW - 3_600_000).toISOString(),
        inspector: 'Dana Developer',
        kind: 'routine',
        findings: [{ practice: 'silt-north', status: 'maintenance', note: 'torn', photos: [hash] }],
      },
      mapleOwner,
    );
    expect(inspected.status).toBe(201);
    for (const headers of [mapleOwnerRead, bearer('tok-admin'), bearer('tok-viewer')])
      expect((await getPhoto(hash, headers)).status).toBe(200);
    expect((await getPhoto(hash, birchOwnerRead)).status).toBe(404);
    // A hash of no photo, and one that is not a hash.
    expect((await getPhoto(sha('nothing'), bearer('tok-admin'))).status).toBe(404);
    expect((await getPhoto('not-a-hash', bearer('tok-admin'))).status).toBe(400);
  });

  it('never changes a photo row, and never removes a cited one', () => {
    const db = new Database(join(gw.dataDir, 'gateway.db'));
    try {
      expect(() => db.exec("UPDATE photos SET stored_by = 'x'")).toThrow(/append-only/);
      // The inspection above cites a photo: its row is kept.
      expect(() => db.exec('DELETE FROM photos')).toThrow(/a cited photo is kept/);
    } finally {
      db.close();
    }
  });
});
