/**
 * An inspection's signature over HTTP against the real gateway: a typed and a drawn signature are
 * stored, answered by GET /api/inspections/{id} and the list, and logged in the inspection's entry; an
 * inspection without one is recorded as before and its entry names none. A malformed or oversized
 * signature (markup in the drawing, a drawing outside the pad, a name too long, a drawing without the
 * drawn method) is refused in words before anything is stored; a resend under the same clientId with
 * another signature is refused.
 */
import { createHash, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIGNATURE_DRAWING_MAX } from '../../../shared/src/api/signatureWords.ts';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { peopleApi } from '../../helpers/people.ts';

const sha = (t: string) => createHash('sha256').update(t).digest('hex');
const NOW = Date.parse('2026-06-10T14:00:00Z');
const at = new Date(NOW - 2 * 3_600_000).toISOString();
const DRAWING = 'M10 150 L40 60 L70 150 M90 100 L140 100 L160 80';

describe('an inspection signed', () => {
  let gw: TestGateway;
  let api: ReturnType<typeof peopleApi>;
  const insp = { authorization: 'Bearer tok-insp' };

  beforeAll(async () => {
    gw = await startTestGateway(
      {
        sites: [{ id: 'oak-lane', name: 'Oak Lane', kind: 'alternative-system', devices: [] }],
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
  });
  afterAll(async () => {
    await gw?.cleanup();
  });

  const record = (body: Record<string, unknown>) =>
    api.call(
      'POST',
      '/api/inspections',
      {
        siteId: 'oak-lane',
        at,
        inspector: 'Ian Inspector',
        kind: 'annual',
        notes: 'System working.',
        ...body,
      },
      insp,
    );
  const db = () => new Database(join(gw.dataDir, 'gateway.db'), { readonly: true });
  const loggedBody = (idx: number) => {
    const d = db();
    try {
      return JSON.parse(
        (d.prepare('SELECT body FROM log_entries WHERE idx = ?').get(idx) as { body: string }).body,
      ) as Record<string, unknown>;
    } finally {
      d.close();
    }
  };
  const counts = () => {
    const d = db();
    try {
      const n = (t: string) => (d.prepare(`SELECT COUNT(*) AS n FROM ${t}`).get() as { n: number }).n;
      return [n('inspections'), n('log_entries')];
    } finally {
      d.close();
    }
  };
  type Dto = { id: string; logIndex: number; signature?: unknown };

  it('stores a drawn and a typed signature, answers them, and logs them with the inspection', async () => {
    const drawn = { name: 'Ian Inspector', method: 'drawn', drawing: DRAWING };
    const r = await record({ signature: drawn });
    expect(r.status).toBe(201);
    const i = (r.body as { inspection: Dto }).inspection;
    expect(i.signature).toEqual(drawn);
    const one = await api.call('GET', `/api/inspections/${i.id}`, undefined, insp);
    expect((one.body as unknown as Dto).signature).toEqual(drawn);
    expect(loggedBody(i.logIndex).signature).toEqual(drawn);

    // The name is trimmed; a typed signature is its name alone.
    const typed = await record({ signature: { name: '  Pat Engineer ', method: 'typed' } });
    expect(typed.status).toBe(201);
    const t = (typed.body as { inspection: Dto }).inspection;
    expect(t.signature).toEqual({ name: 'Pat Engineer', method: 'typed' });
    expect(loggedBody(t.logIndex).signature).toEqual({ name: 'Pat Engineer', method: 'typed' });

    const listed = (await api.call('GET', '/api/inspections?siteId=oak-lane', undefined, insp))
      .body as unknown as Dto[];
    expect(listed.find((x) => x.id === i.id)?.signature).toEqual(drawn);
    expect(listed.find((x) => x.id === t.id)?.signature).toEqual({ name: 'Pat Engineer', method: 'typed' });
  });

  it('records an inspection without a signature as before: its entry names none', async () => {
    const r = await record({});
    expect(r.status).toBe(201);
    const i = (r.body as { inspection: Dto }).inspection;
    expect(i.signature).toBeUndefined();
    expect(loggedBody(i.logIndex)).not.toHaveProperty('signature');
  });

  it('refuses a malformed or oversized signature in words, storing nothing', async () => {
    const before = counts();
    const cases: Array<[unknown, RegExp]> = [
      [
        { name: 'Ian', method: 'drawn', drawing: '<svg onload="alert(1)"><path d="M0 0"/></svg>' },
        /^signature\.drawing: a drawn signature is its strokes' points only .*sign again on the pad$/,
      ],
      [
        { name: 'Ian', method: 'drawn', drawing: 'M10 10 L20 20" onclick="x' },
        /^signature\.drawing: a drawn signature is its strokes' points only/,
      ],
      [
        { name: 'Ian', method: 'drawn', drawing: 'M10 10 C20 20 30 30 40 40' },
        /^signature\.drawing: a drawn signature is its strokes' points only/,
      ],
      [
        { name: 'Ian', method: 'drawn', drawing: 'M10 10 L900 20' },
        /^signature\.drawing: a drawn signature lies within 600 by 200: sign again on the pad$/,
      ],
      [
        { name: 'Ian', method: 'drawn', drawing: `M1 1${' L2 2'.repeat(SIGNATURE_DRAWING_MAX / 5 + 1)}` },
        /^signature\.drawing: at most 16,384 characters: shorten it/,
      ],
      [{ name: 'Ian', method: 'drawn' }, /^signature\.drawing: a drawn signature needs its drawing/],
      [
        { name: 'Ian', method: 'typed', drawing: 'M1 1 L2 2' },
        /^signature\.drawing: a signature with the typed name has no drawing/,
      ],
      [{ name: 'x'.repeat(201), method: 'typed' }, /^signature\.name: at most 200 characters: shorten it$/],
      [{ name: '   ', method: 'typed' }, /^signature\.name: /],
      [{ name: 'Ian', method: 'stamp' }, /^signature\.method: /],
      [{ name: 'Ian', method: 'typed', html: '<b>' }, /^signature: /],
    ];
    for (const [signature, message] of cases) {
      const r = await record({ signature });
      expect(r.status, JSON.stringify(signature).slice(0, 80)).toBe(400);
      expect(r.body.error).toBe('BAD_REQUEST');
      expect(String(r.body.message)).toMatch(message);
    }
    expect(counts()).toEqual(before);
  });

  it('refuses a resend under the same clientId with another signature', async () => {
    const clientId = randomUUID();
    const first = await record({ clientId, signature: { name: 'Ian Inspector', method: 'typed' } });
    expect(first.status).toBe(201);
    const again = await record({ clientId, signature: { name: 'Ian Inspector', method: 'typed' } });
    expect(again.status).toBe(200);
    const other = await record({
      clientId,
      signature: { name: 'Ian Inspector', method: 'drawn', drawing: DRAWING },
    });
    expect([other.status, other.body.error]).toEqual([409, 'INSPECTION_RESENT_CHANGED']);
  });
});
