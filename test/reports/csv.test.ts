/**
 * CSV reports (reports/csv.ts) are safe to open in a spreadsheet: a cell that starts with `=`, `+`, `-`,
 * `@`, a tab or a carriage return gets a leading apostrophe inside its quotes (OWASP, CSV injection), so
 * `=HYPERLINK(...)` is text. Checked on the cells, and on the compliance report through the HTTP API with
 * inspectors named so, parsing the CSV back.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csvCell, csvText } from '../../gateway/src/reports/csv.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { parseCsv } from '../helpers/reportText.ts';

const FORMULAS = [
  '=HYPERLINK("http://evil.example/","click")',
  '+1+1',
  '-2+3',
  '@SUM(A1:A2)',
  '\t=1',
  '\r=1',
];

describe('CSV cells', () => {
  it('neutralise a leading =, +, -, @, tab or carriage return with an apostrophe inside the quotes', () => {
    for (const f of FORMULAS) {
      const cell = csvCell(f);
      expect(cell.startsWith(`"'`), JSON.stringify(f)).toBe(true);
      expect(parseCsv(`${cell}\r\n`)).toEqual([[`'${f}`]]);
    }
    expect(csvCell('=A1,"x"')).toBe(`"'=A1,""x"""`);
  });

  it('leave other cells as they were: plain, or quoted when they hold a quote, comma or line break', () => {
    expect(csvCell('storm-inspection')).toBe('storm-inspection');
    expect(csvCell('2026-12-01T10:00:00.000Z')).toBe('2026-12-01T10:00:00.000Z');
    expect(csvCell('a, b')).toBe('"a, b"');
    expect(csvCell('say "hi"\nbye')).toBe('"say ""hi""\nbye"');
    expect(csvCell(null)).toBe('');
    expect(
      parseCsv(
        csvText([
          ['a', 'b,c'],
          ['=1', ''],
        ]),
      ),
    ).toEqual([
      ['a', 'b,c'],
      ["'=1", ''],
    ]);
  });
});

describe('the compliance report as CSV, through the API', () => {
  let gw: TestGateway;
  const token = 'tok-inspector';
  beforeAll(async () => {
    gw = await startTestGateway({
      auth: {
        tokens: [
          {
            name: 'Ida',
            role: 'inspector',
            tokenSha256: createHash('sha256').update(token).digest('hex'),
          },
        ],
      },
    });
  });
  afterAll(async () => gw?.cleanup());

  it('keeps an inspector named like a formula as text', async () => {
    const at = new Date(Date.now() - 3_600_000).toISOString();
    // The API trims names: tabs and carriage returns cannot lead one (the cells above cover them).
    const names = FORMULAS.slice(0, 4);
    for (const inspector of names) {
      const res = await fetch(`${gw.httpUrl}/api/inspections`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ siteId: 'maple-ridge', at, inspector, kind: 'routine', notes: '@note' }),
      });
      expect(res.status).toBe(201);
    }
    const from = new Date(Date.now() - 86_400_000).toISOString();
    const to = new Date(Date.now() + 60_000).toISOString();
    const csv = await (
      await fetch(`${gw.httpUrl}/api/reports/compliance?siteId=maple-ridge&from=${from}&to=${to}&format=csv`)
    ).text();
    const rows = parseCsv(csv);
    const header = rows[0]!;
    const detail = header.indexOf('detail');
    const inspections = rows.filter((r) => r[0] === 'inspection').map((r) => r[detail]);
    expect(inspections.sort()).toEqual(names.map((n) => `'${n}: @note`).sort());
    // No cell of the report starts as a formula.
    for (const r of rows) for (const c of r) expect(/^[=+\-@\t\r]/.test(c), c).toBe(false);
  });
});
