/**
 * The report's findings (reports/sections/inspectionFindings.ts) and its photos (reports/photos.ts):
 * each finding under its inspection with the practice's label (or that the site no longer lists it) and
 * the finding in words; the photos carried in the page up to the report's budget, in order, those past it
 * listed by hash with how many more than a report carries and where to open them; a photo not on file,
 * cited by no record of the site, or whose stored bytes do not match its hash is not carried; and the
 * CSV's `finding` rows with the photos' hashes.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { buildComplianceReport } from '../../gateway/src/reports/compliance.ts';
import { reportToCsv } from '../../gateway/src/reports/csv.ts';
import { reportToHtml } from '../../gateway/src/reports/html.ts';
import { reportPhotos } from '../../gateway/src/reports/photos.ts';
import type { ComplianceReport } from '../../gateway/src/reports/report.ts';
import { GONE_PRACTICE } from '../../gateway/src/reports/sections/inspectionFindings.ts';
import type { PhotoRow } from '../../gateway/src/store/photos.ts';
import { png } from '../helpers/photos.ts';
import { EMPTY, FULL, NOW, PERIOD, PHOTO_A, PHOTO_B, SITE, TZ } from '../helpers/reportFixture.ts';

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

function report(inspections = FULL.inspections): ComplianceReport {
  return buildComplianceReport({
    ...EMPTY,
    site: SITE,
    timezone: TZ,
    period: PERIOD,
    now: NOW,
    generatedBy: 'Ida Inspector',
    inspections,
    violations: [],
    stopWork: [],
  });
}

/** Photos as the store keeps them: rows, bytes on disk, and the sites whose records cite each. */
function store(files: Array<{ bytes: Buffer; sha?: string; site?: string }>) {
  const rows = new Map<string, { row: PhotoRow; bytes: Buffer; sites: string[] }>();
  for (const f of files) {
    const h = f.sha ?? sha(f.bytes);
    rows.set(h, {
      row: { sha256: h, type: 'image/png', bytes: f.bytes.length, stored_at: 0, stored_by: 'Ida' },
      bytes: f.bytes,
      sites: [f.site ?? SITE.id],
    });
  }
  const reads: string[] = [];
  return {
    reads,
    get: (h: string) => rows.get(h)?.row,
    read: async (h: string) => {
      reads.push(h);
      return rows.get(h)!.bytes;
    },
    citingSites: (h: string) => rows.get(h)?.sites ?? [],
  };
}

/** An inspection of the fixture with one finding at the silt fence citing these photos. */
const citing = (photos: string[]) => [
  {
    ...FULL.inspections[0]!,
    findings: [{ practice: 'silt-n', status: 'maintenance' as const, note: '', photos }],
  },
];

describe("the report's findings", () => {
  it('lists each under its inspection: the label, the finding in words, the note, the photos', () => {
    const html = reportToHtml(report(), {
      links: { json: 'j', verify: 'v', photo: 'https://gw.example/api/photos/' },
    });
    const part = html.slice(
      html.indexOf('<tr class="findings">'),
      html.indexOf('</tr></tbody></table></td></tr>'),
    );
    expect(part).toContain(
      '<td>Silt fence, north &lt;edge&gt;</td><td>Needs maintenance</td><td>Sagging &quot;10 ft&quot; &lt;east&gt;</td>',
    );
    expect(part).toContain(`<td>${GONE_PRACTICE}</td><td>In order</td><td>—</td>`);
    // Not read for the page: listed by hash, with where to open it.
    expect(part).toContain(`<code title="SHA-256 ${PHOTO_A}">${PHOTO_A.slice(0, 12)}…</code>`);
    expect(part).toContain(`open it at <a href="https://gw.example/api/photos/${PHOTO_B}">`);
    expect(part).not.toContain('<img');
    // The inspection without findings has no table.
    expect(html.match(/<table class="findings">/g)).toHaveLength(1);
  });

  it('carries photos up to the budget, in order; past it says how many more and where to open them', async () => {
    const photos = [png(4, 4, [200, 0, 0]), png(5, 5, [0, 200, 0]), png(6, 6, [0, 0, 200])];
    const hashes = photos.map(sha);
    const s = store(photos.map((bytes) => ({ bytes })));
    const r = report(citing(hashes));
    const map = await reportPhotos(r, s, { photos: 1, bytes: 1_000_000 });
    expect(map.get(hashes[0]!)).toEqual({
      shown: true,
      src: `data:image/png;base64,${photos[0]!.toString('base64')}`,
    });
    expect(map.get(hashes[1]!)).toEqual({ shown: false, why: 'budget', more: 2 });
    expect(map.get(hashes[2]!)).toEqual({ shown: false, why: 'budget', more: 2 });
    // Only what the page carries is read.
    expect(s.reads).toEqual([hashes[0]]);
    const html = reportToHtml(r, {
      photos: map,
      links: { json: 'j', verify: 'v', photo: 'https://gw.example/api/photos/' },
    });
    expect(html).toContain(
      `<img src="data:image/png;base64,${photos[0]!.toString('base64')}" alt="Silt fence, north &lt;edge&gt;, as found (1 of 3)"`,
    );
    expect(html).toContain(
      `Photo not embedded: 2 more photos than a report carries; open it at <a href="https://gw.example/api/photos/${hashes[1]}">`,
    );
    // The bytes' budget too: the second photo does not fit after the first.
    const bytes = await reportPhotos(r, store(photos.map((b) => ({ bytes: b }))), {
      photos: 60,
      bytes: photos[0]!.length + 10,
    });
    expect([...bytes.values()].map((p) => p.shown)).toEqual([true, false, false]);
  });

  it('carries no photo not on file, cited by no record of the site, or changed since it was stored', async () => {
    const good = png(3, 3, [1, 2, 3]);
    const other = png(7, 7, [9, 9, 9]);
    const changed = png(8, 8, [50, 50, 50]);
    const claimed = 'c3'.repeat(32);
    const s = store([{ bytes: good }, { bytes: other, site: 'elsewhere' }, { bytes: changed, sha: claimed }]);
    const absent = 'd4'.repeat(32);
    const map = await reportPhotos(report(citing([sha(good), sha(other), claimed, absent])), s);
    expect(map.get(sha(good))?.shown).toBe(true);
    expect(map.get(sha(other))).toEqual({ shown: false, why: 'missing' });
    expect(map.get(absent)).toEqual({ shown: false, why: 'missing' });
    expect(map.get(claimed)).toEqual({ shown: false, why: 'changed' });
    expect(s.reads).not.toContain(sha(other));
    const html = reportToHtml(report(citing([claimed, absent])), { photos: map });
    expect(html).toContain('Photo not embedded: the stored photo does not match its hash');
    expect(html).toContain('Photo not embedded: it is not on file at the gateway');
  });

  it("gives each finding a CSV row: the inspection, the finding in words, the note, the practice, the photos' hashes", () => {
    const lines = reportToCsv(report()).split('\r\n');
    expect(lines[0]).toBe(
      'section,id,rule,device,began,due,done,status,detail,inspection,practice,photos,signed by',
    );
    const at = lines.findIndex((l) => l.startsWith('inspection,i-1,'));
    expect(lines[at + 1]).toBe(
      `finding,i-1,,,2026-11-05T16:00:00.000Z,,,Needs maintenance,"Sagging ""10 ft"" <east>",,"Silt fence, north <edge>",${PHOTO_A} ${PHOTO_B},`,
    );
    expect(lines[at + 2]).toBe(`finding,i-1,,,2026-11-05T16:00:00.000Z,,,In order,,,${GONE_PRACTICE},,`);
    expect(lines[at + 3]).toMatch(/^inspection,i-2,/);
  });

  it("keeps the site's practices in the report's JSON, for its findings' labels", () => {
    expect(report().site.practices).toEqual([
      { id: 'silt-n', label: 'Silt fence, north <edge>' },
      { id: 'inlet-1', label: 'Inlet protection, Elm St.' },
    ]);
  });
});
