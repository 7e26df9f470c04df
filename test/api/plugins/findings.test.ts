/**
 * Inspections with findings over HTTP against the real gateway: findings at a construction site's
 * practices with photos, stored and covered by the inspection's log entry; refused (in words, the part of
 * the body named in `field`) for a practice the site does not have, a photo not stored, or a site that is
 * not construction; the browser's clientId sent again answers the first inspection and records nothing,
 * and with another body is a conflict.
 */
import { createHash, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { peopleApi } from '../../helpers/people.ts';
import { jpegBytes, postPhoto } from '../../helpers/photos.ts';

const sha = (t: string) => createHash('sha256').update(t).digest('hex');
const NOW = Date.parse('2026-06-10T14:00:00Z');
const at = new Date(NOW - 2 * 3_600_000).toISOString();
const sentence = /^[A-Z][^_{}]*[.!?]$/;

describe('inspections with findings', () => {
  let gw: TestGateway;
  let api: ReturnType<typeof peopleApi>;
  const insp = { authorization: 'Bearer tok-insp' };
  let photo: string;

  beforeAll(async () => {
    gw = await startTestGateway(
      {
        sites: [
          {
            id: 'maple-ridge',
            name: 'Maple Ridge',
            kind: 'construction',
            practices: [
              { id: 'silt-north', label: 'Silt fence, north boundary', kind: 'silt-fence' },
              { id: 'inlet-1', label: 'Inlet protection, Elm St.', kind: 'inlet-protection' },
            ],
            devices: [],
          },
          { id: 'birch-hill', name: 'Birch Hill', kind: 'construction', devices: [] },
          { id: 'oak-lane', name: 'Oak Lane', kind: 'alternative-system', devices: [] },
        ],
        auth: {
          tokens: [
            { name: 'Ada Admin', role: 'admin', tokenSha256: sha('tok-admin') },
            { name: 'Ian Inspector', role: 'inspector', tokenSha256: sha('tok-insp') },
          ],
        },
      },
      { now: () => NOW },
    );
    api = peopleApi(gw.httpUrl, 'tok-admin');
    photo = String((await postPhoto(gw.httpUrl, jpegBytes('inlet clogged'), 'image/jpeg', insp)).body.sha256);
  });
  afterAll(async () => {
    await gw?.cleanup();
  });

  const record = (body: Record<string, unknown>) =>
    api.call(
      'POST',
      '/api/inspections',
      { siteId: 'maple-ridge', at, inspector: 'Ian Inspector', kind: 'routine', ...body },
      insp,
    );
  const rows = () => {
    const db = new Database(join(gw.dataDir, 'gateway.db'), { readonly: true });
    try {
      const count = (t: string) => (db.prepare(`SELECT COUNT(*) AS n FROM ${t}`).get() as { n: number }).n;
      return { inspections: count('inspections'), entries: count('log_entries') };
    } finally {
      db.close();
    }
  };

  it('records findings with their photos, by the signed-in person, and logs them', async () => {
    const r = await record({
      findings: [
        { practice: 'silt-north', status: 'ok' },
        {
          practice: 'inlet-1',
          status: 'violation',
          note: 'Clogged, sediment in the street',
          photos: [photo],
        },
      ],
    });
    expect(r.status).toBe(201);
    const i = (r.body as { inspection: Record<string, unknown> }).inspection;
    expect(i.recordedBy).toBe('Ian Inspector');
    expect(i.findings).toEqual([
      { practice: 'silt-north', status: 'ok', note: '', photos: [] },
      { practice: 'inlet-1', status: 'violation', note: 'Clogged, sediment in the street', photos: [photo] },
    ]);
    const listed = await api.call('GET', '/api/inspections?siteId=maple-ridge', undefined, insp);
    expect((listed.body as unknown as Array<{ id: string; findings: unknown }>)[0]!.findings).toEqual(
      i.findings,
    );
    // The log entry covers the findings and the photos' hashes.
    const db = new Database(join(gw.dataDir, 'gateway.db'), { readonly: true });
    try {
      const entry = db.prepare('SELECT body FROM log_entries WHERE idx = ?').get(i.logIndex) as {
        body: string;
      };
      const logged = JSON.parse(entry.body) as { type: string; findings: unknown; id: string };
      expect(logged.type).toBe('inspection');
      expect(logged.id).toBe(i.id);
      expect(logged.findings).toEqual(i.findings);
      expect(entry.body).toContain(photo);
    } finally {
      db.close();
    }
  });

  it('an inspection without findings has none, and its log entry names none', async () => {
    const r = await api.call(
      'POST',
      '/api/inspections',
      { siteId: 'oak-lane', at, inspector: 'Ian Inspector', kind: 'annual', notes: 'System working.' },
      insp,
    );
    expect(r.status).toBe(201);
    const i = (r.body as { inspection: { findings: unknown; logIndex: number } }).inspection;
    expect(i.findings).toEqual([]);
    const db = new Database(join(gw.dataDir, 'gateway.db'), { readonly: true });
    try {
      const { body } = db.prepare('SELECT body FROM log_entries WHERE idx = ?').get(i.logIndex) as {
        body: string;
      };
      expect(body).not.toContain('findings');
    } finally {
      db.close();
    }
  });

  it('refuses a practice the site does not have, a photo not stored, and a site that is not construction', async () => {
    const before = rows();
    const practice = await record({
      findings: [
        { practice: 'silt-north', status: 'ok' },
        { practice: 'silt-south', status: 'ok' },
      ],
    });
    expect(practice.status).toBe(400);
    expect(practice.body).toEqual({
      error: 'UNKNOWN_PRACTICE',
      field: 'findings[1].practice',
      message:
        'The 2nd finding names a practice Maple Ridge does not have. Its practices are: Silt fence, north boundary; Inlet protection, Elm St.',
    });
    const unknownPhoto = await record({
      findings: [{ practice: 'inlet-1', status: 'maintenance', photos: [photo, sha('never sent')] }],
    });
    expect(unknownPhoto.status).toBe(400);
    expect(unknownPhoto.body.error).toBe('UNKNOWN_PHOTO');
    expect(unknownPhoto.body.field).toBe('findings[0].photos[1]');
    const none = await api.call(
      'POST',
      '/api/inspections',
      {
        siteId: 'birch-hill',
        at,
        inspector: 'Ian Inspector',
        kind: 'routine',
        findings: [{ practice: 'silt-north', status: 'ok' }],
      },
      insp,
    );
    expect([none.status, none.body.error]).toEqual([400, 'UNKNOWN_PRACTICE']);
    expect(none.body.message).toBe(
      'Birch Hill lists no practices to inspect: an administrator adds them to the site first.',
    );
    const septic = await api.call(
      'POST',
      '/api/inspections',
      {
        siteId: 'oak-lane',
        at,
        inspector: 'Ian Inspector',
        kind: 'annual',
        findings: [{ practice: 'silt-north', status: 'ok' }],
      },
      insp,
    );
    expect([septic.status, septic.body.error]).toEqual([409, 'NOT_CONSTRUCTION']);
    expect(septic.body.message).toBe(
      'Oak Lane is not a construction site: findings at practices are for construction sites only.',
    );
    for (const r of [practice, unknownPhoto, none, septic]) expect(String(r.body.message)).toMatch(sentence);
    const after = rows();
    expect([after.inspections, after.entries]).toEqual([before.inspections, before.entries]);
  });

  it('answers the first inspection for a clientId sent again, and refuses it with another body', async () => {
    const clientId = randomUUID();
    const body = {
      clientId,
      notes: 'typed in the field, offline',
      findings: [{ practice: 'silt-north', status: 'maintenance', note: 'sagging', photos: [photo] }],
    };
    const first = await record(body);
    expect(first.status).toBe(201);
    const before = rows();
    const again = await record(body);
    expect(again.status).toBe(200);
    const firstInspection = (first.body as { inspection: { id: string } }).inspection;
    expect(again.body).toEqual({ inspection: firstInspection, closedAlertIds: [] });
    // With the defaults written out it is the same inspection.
    const spelled = await record({
      ...body,
      findings: [{ practice: 'silt-north', status: 'maintenance', note: 'sagging', photos: [photo] }],
    });
    expect(spelled.status).toBe(200);
    const changed = await record({ ...body, findings: [{ practice: 'silt-north', status: 'ok' }] });
    expect(changed.status).toBe(409);
    expect(changed.body.error).toBe('INSPECTION_RESENT_CHANGED');
    expect(String(changed.body.message)).toMatch(sentence);
    const after = rows();
    expect([after.inspections, after.entries]).toEqual([before.inspections, before.entries]);
  });
});
