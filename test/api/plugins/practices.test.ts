/**
 * A construction site's practices changed over HTTP against the real gateway (PATCH /api/sites/{id}):
 * added, renamed, of another kind, retired, each a change record of the site; a practice that findings
 * name is refused removal in words (it is retired instead), and a retirement stays as recorded. A finding
 * for a practice retired by the inspection's time is refused in words and nothing is stored; coverage
 * ("every practice") counts the practices in force at the inspection's time; and the report of it all
 * verifies from the log.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readReport, verifyReport } from '../../../gateway/src/verifier/verify.ts';
import { practiceChanges } from '../../../shared/src/api/practiceWords.ts';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';
import { findingsFor } from '../../helpers/inspections.ts';
import { peopleApi } from '../../helpers/people.ts';
import { checkpointedReport } from '../../helpers/reports.ts';

const sha = (t: string) => createHash('sha256').update(t).digest('hex');
const HOUR = 3_600_000;
const sentence = /^[A-Z][^_{}]*[.!?]$/;
const ZONE = 'America/New_York';
const admin = { authorization: 'Bearer tok-admin' };
const insp = { authorization: 'Bearer tok-insp' };

interface P {
  id: string;
  label: string;
  kind: string;
  retired?: string;
}

describe("a construction site's practices: added, renamed, retired, never lost", () => {
  let gw: TestGateway;
  let api: ReturnType<typeof peopleApi>;
  const now = Date.now();
  const retiredAt = new Date(now - 2 * HOUR).toISOString();
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    gw = await startTestGateway({
      sites: [
        {
          id: 'elm-court',
          name: 'Elm Court',
          kind: 'construction',
          timezone: ZONE,
          practices: [
            { id: 'silt-n', label: 'Silt fence, north boundary', kind: 'silt-fence' },
            { id: 'inlet-1', label: 'Inlet protection', kind: 'inlet-protection' },
          ],
          devices: [],
        },
      ],
      auth: {
        tokens: [
          { name: 'Ada Admin', role: 'admin', tokenSha256: sha('tok-admin') },
          { name: 'Ian Inspector', role: 'inspector', tokenSha256: sha('tok-insp') },
        ],
      },
      evidence: { checkpointIntervalSeconds: 1 },
    } as never);
    api = peopleApi(gw.httpUrl, 'tok-admin');
  });
  afterAll(async () => {
    await gw?.cleanup();
  });

  const practices = async () =>
    ((await api.call('GET', '/api/sites/elm-court', undefined, admin)).body.practices ?? []) as P[];
  const setPractices = (list: P[]) => api.call('PATCH', '/api/sites/elm-court', { practices: list }, admin);
  const record = (hoursAgo: number, findings: string[], extra: Record<string, unknown> = {}) =>
    api.call(
      'POST',
      '/api/inspections',
      {
        siteId: 'elm-court',
        at: new Date(now - hoursAgo * HOUR).toISOString(),
        inspector: 'Ian Inspector',
        kind: 'routine',
        side: 'developer',
        findings: findingsFor(findings),
        ...extra,
      },
      insp,
    );
  const inspections = () => {
    const db = new Database(join(gw.dataDir, 'gateway.db'), { readonly: true });
    try {
      return (db.prepare('SELECT COUNT(*) AS n FROM inspections').get() as { n: number }).n;
    } finally {
      db.close();
    }
  };

  it('adds a practice, renames one and changes its kind, each a change of the site', async () => {
    const list = await practices();
    const added = await setPractices([
      ...list,
      { id: 'sediment-trap-no-1', label: 'Sediment trap no. 1', kind: 'sediment-trap' },
    ]);
    expect(added.status).toBe(200);
    const renamed = await setPractices(
      (await practices()).map((p) =>
        p.id === 'inlet-1' ? { ...p, label: 'Inlet protection at catch basin CB-2', kind: 'other' } : p,
      ),
    );
    expect(renamed.status).toBe(200);
    expect(await practices()).toEqual([
      { id: 'silt-n', label: 'Silt fence, north boundary', kind: 'silt-fence' },
      { id: 'inlet-1', label: 'Inlet protection at catch basin CB-2', kind: 'other' },
      { id: 'sediment-trap-no-1', label: 'Sediment trap no. 1', kind: 'sediment-trap' },
    ]);
    const changes = (await api.call('GET', '/api/changes?siteId=elm-court', undefined, admin))
      .body as unknown as {
      items?: Array<{ entity: string; action: string; old?: { practices?: P[] }; new?: { practices?: P[] } }>;
    };
    const items = (Array.isArray(changes) ? changes : (changes.items ?? [])) as NonNullable<
      typeof changes.items
    >;
    const updates = items.filter((c) => c.entity === 'site' && c.action === 'update');
    expect(updates).toHaveLength(2);
    const words = updates.flatMap((c) => practiceChanges(c.old?.practices, c.new?.practices, ZONE));
    expect(words.sort()).toEqual([
      "practice 'Inlet protection at catch basin CB-2' changed from inlet protection to other practice",
      "practice 'Inlet protection' renamed 'Inlet protection at catch basin CB-2'",
      "practice 'Sediment trap no. 1' added (sediment trap)",
    ]);
  });

  it('counts every practice in force, and refuses to remove a practice that findings name', async () => {
    const r = await record(5, ['silt-n', 'inlet-1', 'sediment-trap-no-1']);
    expect(r.status).toBe(201);
    ids.before = String((r.body.inspection as { id: string }).id);
    expect((r.body.inspection as { coverage?: unknown }).coverage).toEqual({ covered: 3, of: 3 });

    const list = await practices();
    const removed = await setPractices(list.filter((p) => p.id !== 'silt-n'));
    expect([removed.status, removed.body.error]).toEqual([409, 'PRACTICE_KEPT']);
    expect(String(removed.body.message)).toMatch(sentence);
    expect(String(removed.body.message)).toContain('Silt fence, north boundary cannot be removed');
    expect(String(removed.body.message)).toContain('Retire it instead');
    expect(await practices()).toEqual(list);

    // A practice no finding names (typed by mistake) may go.
    expect(
      (await setPractices([...list, { id: 'typo', label: 'Silt fense', kind: 'silt-fence' }])).status,
    ).toBe(200);
    expect((await setPractices(list)).status).toBe(200);
    expect(await practices()).toEqual(list);
  });

  it('retires a practice; a retirement stays as recorded and is not set in the future', async () => {
    const list = await practices();
    const retire = await setPractices(
      list.map((p) => (p.id === 'silt-n' ? { ...p, retired: retiredAt } : p)),
    );
    expect(retire.status).toBe(200);
    const retired = await practices();
    expect(retired.find((p) => p.id === 'silt-n')?.retired).toBe(retiredAt);

    for (const [what, next] of [
      ['back in force', retired.map((p) => (p.id === 'silt-n' ? { ...p, retired: undefined } : p))],
      [
        'another time',
        retired.map((p) => (p.id === 'silt-n' ? { ...p, retired: new Date(now - HOUR).toISOString() } : p)),
      ],
      [
        'in the future',
        retired.map((p) =>
          p.id === 'inlet-1' ? { ...p, retired: new Date(now + 24 * HOUR).toISOString() } : p,
        ),
      ],
      ['removed', retired.filter((p) => p.id !== 'silt-n')],
    ] as const) {
      const r = await setPractices(JSON.parse(JSON.stringify(next)) as P[]);
      expect([what, r.status, r.body.error]).toEqual([what, 409, 'PRACTICE_KEPT']);
      expect(String(r.body.message), what).toMatch(sentence);
    }
    expect(await practices()).toEqual(retired);
  });

  it('refuses a finding for a practice retired by then, in words, and stores nothing', async () => {
    const before = inspections();
    const r = await record(1, ['inlet-1', 'silt-n', 'sediment-trap-no-1']);
    expect([r.status, r.body.error, r.body.field]).toEqual([400, 'RETIRED_PRACTICE', 'findings[1].practice']);
    expect(String(r.body.message)).toMatch(sentence);
    expect(String(r.body.message)).toContain(
      'The 2nd finding is for Silt fence, north boundary, which was retired from',
    );
    expect(String(r.body.message)).toMatch(/E[SD]T: it is no longer inspected/);
    expect(inspections()).toBe(before);
  });

  it("counts only the practices in force at the inspection's time", async () => {
    const after = await record(1, ['inlet-1', 'sediment-trap-no-1']);
    expect(after.status).toBe(201);
    ids.after = String((after.body.inspection as { id: string }).id);
    expect((after.body.inspection as { coverage?: unknown }).coverage).toEqual({ covered: 2, of: 2 });
    // An inspection made before the retirement, entered late, still inspects it.
    const late = await record(3, ['silt-n']);
    expect(late.status).toBe(201);
    ids.late = String((late.body.inspection as { id: string }).id);
    expect((late.body.inspection as { coverage?: unknown }).coverage).toEqual({ covered: 1, of: 3 });
  });

  it('the report of it all verifies from the log, with each coverage as logged', async () => {
    const key = String((await api.call('GET', '/api/evidence/key', undefined, admin)).body.verifierKey);
    const text = await checkpointedReport(gw.httpUrl, 'siteId=elm-court&from=2020-01-01&format=json', admin);
    const report = readReport(JSON.parse(text));
    const v = await verifyReport(report, key);
    expect(v.problems).toEqual([]);
    const coverage = (id: string | undefined) => report.inspections.find((x) => x.id === id)?.coverage;
    expect([coverage(ids.before), coverage(ids.after), coverage(ids.late)]).toEqual([
      { covered: 3, of: 3 },
      { covered: 2, of: 2 },
      { covered: 1, of: 3 },
    ]);
  });
});
