/**
 * The one checker of a report's sections: a table's field rows are what it compares (a row added to a
 * DTO's table is checked with no other code, on a made-up section and on a real report), absent fields
 * read as each section says, the site's numbering and the period's records are the table's to name.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type CitedBody,
  type Context,
  checkSection,
  differences,
  type Section,
} from '../../gateway/src/verifier/checker.ts';
import { readReport, verifyReport } from '../../gateway/src/verifier/verify.ts';
import { inspectionFields } from '../../shared/src/api/alertFields.ts';
import type { FieldRow } from '../../shared/src/api/fieldRows.ts';
import { makeRealReport, type RealReport } from '../helpers/verifiedReport.ts';

const W = { tz: 'UTC', site: 'Maple Ridge' };
const DAY = 86_400_000;
const P = Date.parse('2026-06-01T00:00:00Z');
const iso = (t: number) => new Date(t).toISOString();

interface Permit {
  id: string;
  holder: string;
  at: string;
  logIndex: number;
}

/** Three permits logged, numbered 1 to 3, in June. */
const logged: CitedBody[] = [1, 2, 3].map((n) => ({
  index: 10 + n,
  pos: n - 1,
  kind: 'permit',
  body: { type: 'permit', id: `p${n}`, siteSeq: n, holder: `Holder ${n}`, at: P + n * DAY, kept: 'yes' },
}));
const shown = (n: number): Permit => ({
  id: `p${n}`,
  holder: `Holder ${n}`,
  at: iso(P + n * DAY),
  logIndex: 10 + n,
});
const ctx: Context = {
  cited: (i) => logged.find((e) => e.index === i),
  all: logged,
  w: W,
  from: P,
  to: P + 30 * DAY,
  stated: true,
};
const fields: FieldRow[] = [
  ['id', 'its number', 'text'],
  ['at', 'its time', 'time'],
];
const permits: Section<Permit> = {
  list: 'permits',
  record: 'permit',
  cites: 'logIndex',
  fields,
  says: { compare: 'all', sentence: 'differs' },
  where: (p) => `The permit ${p.id}`,
  missing: 'its log entry is not in the report',
  numbered: { sentence: 'site', one: 'permit', many: 'permits' },
  inPeriod: { at: 'at', period: 'open' },
};

describe('the checker of a section', () => {
  it('passes a list that is its log entries, and compares only the rows of its table', () => {
    const changed = { ...shown(2), holder: 'Someone else' };
    expect(checkSection(permits, [shown(1), changed, shown(3)], ctx)).toEqual([]);
  });

  it('checks a row added to the table with no other code', () => {
    const withHolder: Section<Permit> = { ...permits, fields: [...fields, ['holder', 'its holder', 'text']] };
    const changed = { ...shown(2), holder: 'Someone else' };
    expect(checkSection(withHolder, [shown(1), changed, shown(3)], ctx)).toEqual([
      {
        field: 'permits[1].holder',
        message:
          'The permit p2: its holder is not what its log entry says (the report shows "Someone else", the log entry "Holder 2")',
      },
    ]);
  });

  it('names a record not cited, and those of the period the list leaves out', () => {
    const problems = checkSection(permits, [shown(1), { ...shown(3), logIndex: 99 }], ctx);
    expect(problems).toEqual([
      { field: 'permits[1].logIndex', message: 'The permit p3: its log entry is not in the report' },
      {
        field: 'permits',
        message:
          "A record of type permit is logged in the report's period (log entry 12) but the report does not list it",
      },
      {
        field: 'permits',
        message:
          "A record of type permit is logged in the report's period (log entry 13) but the report does not list it",
      },
    ]);
  });

  it('names the gap a record taken out of the report leaves, when the table numbers them', () => {
    const without = logged.filter((e) => e.index !== 12);
    const short = { ...ctx, all: without, cited: (i?: number) => without.find((e) => e.index === i) };
    expect(checkSection(permits, [shown(1), shown(3)], short)).toEqual([
      {
        field: 'permits',
        message:
          'The permits of Maple Ridge in the report skip one: permit no. 3 comes in place 2, so one before it is missing from the report',
      },
    ]);
    // Without the numbering in its table, the same list is only its records.
    expect(checkSection({ ...permits, numbered: undefined }, [shown(1), shown(3)], short)).toEqual([]);
  });

  it('reads an absent field as the section says: not shown, or none', () => {
    const pairs: Parameters<typeof differences>[2] = [['holder', 'its holder', undefined, 'Holder 1']];
    expect(
      differences('The permit p1', 'permits[0]', pairs, { compare: 'given', sentence: 'shows' }, W),
    ).toEqual([]);
    expect(
      differences('The permit p1', 'permits[0]', pairs, { compare: 'all', sentence: 'shows' }, W),
    ).toEqual([
      {
        field: 'permits[0].holder',
        message: 'The permit p1: the report shows its holder none, its logged record "Holder 1"',
      },
    ]);
  });
});

describe("a row added to a DTO's table, on a real report", () => {
  let real: RealReport;
  beforeAll(async () => {
    real = await makeRealReport();
  });
  afterEach(() => {
    const at = inspectionFields.findIndex(([key]) => key === 'siteId');
    if (at >= 0) inspectionFields.splice(at, 1);
  });

  it("is what verifyReport checks: an inspection's site, once its row is in inspectionFields", async () => {
    const report = readReport(JSON.parse(real.text));
    (report.inspections[0] as { siteId?: string }).siteId = 'elsewhere';
    expect((await verifyReport(report, real.key)).problems).toEqual([]);

    inspectionFields.push(['siteId', 'its site', 'text']);
    const v = await verifyReport(report, real.key);
    expect(v.problems).toEqual([
      {
        field: 'inspections[0].siteId',
        message: expect.stringMatching(
          /^The inspection of .* by Ian Inspector: the report shows its site "elsewhere", its logged record "maple-ridge"$/,
        ),
      },
    ]);
  });
});
