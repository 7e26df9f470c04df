/**
 * The printed report, notice of violation and stop-work order as a town files them: printed to PDF by the
 * real Chromium, each page rendered to a grey image by pdftoppm, and read pixel by pixel. Nothing is
 * drawn in the page's right margin, and every bordered box is closed on the right as it is on the left
 * (a box cut at the page's edge loses its right border, or draws it fainter than its left one), with
 * long unbroken ids, hashes and words in the texts. Each document's footer names that document. No page
 * but the last ends on a heading or a label (a line ending in a colon), or is less than half full.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildComplianceReport } from '../../gateway/src/reports/compliance.ts';
import { reportToHtml } from '../../gateway/src/reports/html.ts';
import { findChromium, htmlToPdf } from '../../gateway/src/reports/pdf.ts';
import type { ReportPhoto } from '../../gateway/src/reports/photos.ts';
import { ordersInEffect } from '../../gateway/src/reports/sections/stopWork.ts';
import { violationsInForce } from '../../gateway/src/reports/sections/violations.ts';
import { stopWorkToHtml } from '../../gateway/src/reports/stopWorkDoc.ts';
import { violationToHtml } from '../../gateway/src/reports/violationDoc.ts';
import { haveBinary } from '../helpers/env.ts';
import { png } from '../helpers/photos.ts';
import { FULL, NOW, PERIOD, PHOTO_A, PHOTO_B, SITE, TZ } from '../helpers/reportFixture.ts';

const chromium = findChromium(undefined);
const can = chromium !== undefined && haveBinary('pdftoppm') && haveBinary('pdftotext');
const dir = mkdtempSync(join(tmpdir(), 'print-margins-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Long texts with no place to break a line: a hash, an id, a web address. */
const HASH = 'ab'.repeat(64);
const LONG_ID = `v-${'9f3c'.repeat(30)}`;
const LONG_WORD = `https://records.town.example/${'x'.repeat(160)}`;

const VIOLATIONS = FULL.violations.map((v, i) =>
  i === 0
    ? {
        ...v,
        id: LONG_ID,
        leafHash: HASH,
        nature: `${v.nature} ${LONG_WORD}`,
        remedy: `${v.remedy} ${HASH}`,
        siteAddress: LONG_WORD,
      }
    : v,
);

const DOC = { inline: true } as const;

function reportHtml(): string {
  const r = FULL;
  const report = buildComplianceReport({
    site: SITE,
    timezone: TZ,
    period: PERIOD,
    now: NOW,
    generatedBy: 'Ida Inspector',
    alerts: r.alerts,
    storms: r.storms,
    inspections: r.inspections.map((x, i) =>
      i === 0 ? { ...x, notes: `${x.notes ?? ''} ${LONG_WORD}` } : x,
    ),
    notices: r.notices,
    violations: violationsInForce({ violations: VIOLATIONS, period: PERIOD, tz: TZ, now: NOW }),
    stopWork: ordersInEffect({ stopWork: r.stopWork, period: PERIOD, tz: TZ }),
    extensions: r.extensions,
    certifications: r.certifications,
    records: r.records,
    changes: r.changes,
    evidence: { ...r.evidence, verifierKey: `${r.evidence.verifierKey}${HASH}` },
  });
  return reportToHtml(report, {
    style: DOC,
    charts: new Map(),
    chartsLeftOut: 0,
    deviceName: (id) => id,
    links: {
      json: `https://gw.town.example/api/reports/compliance?siteId=${LONG_WORD}&format=json`,
      verify: 'https://gw.town.example/verify.html',
      photo: `${LONG_WORD}/`,
    },
    // The first inspection's findings: one photo carried in the page, the other listed by its hash.
    photos: new Map<string, ReportPhoto>([
      [
        PHOTO_A,
        { shown: true, src: `data:image/png;base64,${png(160, 120, [90, 90, 90]).toString('base64')}` },
      ],
      [PHOTO_B, { shown: false, why: 'budget', more: 1 }],
    ]),
  });
}

const noticeHtml = () =>
  violationToHtml(VIOLATIONS[0]!, {
    style: DOC,
    siteName: SITE.name ?? SITE.id,
    tz: TZ,
    inspection: FULL.inspections[0],
    practiceLabel: (p) => p,
  });

const orderHtml = () =>
  stopWorkToHtml(
    { ...FULL.stopWork[0]!, violationIds: [LONG_ID, ...FULL.stopWork[0]!.violationIds] },
    {
      style: DOC,
      siteName: SITE.name ?? SITE.id,
      tz: TZ,
      parties: { siteAddress: LONG_WORD },
      notices: VIOLATIONS,
    },
  );

interface Page {
  w: number;
  h: number;
  px: Buffer;
}

/** The PDF's pages as grey images (one byte a pixel, 0 black) at `dpi`. */
async function pages(name: string, html: string, dpi = 100): Promise<{ pages: Page[]; text: string }> {
  const pdf = await htmlToPdf(html, { chromium: chromium!, timeoutMs: 120_000 });
  const file = join(dir, `${name}.pdf`);
  writeFileSync(file, pdf);
  execFileSync('pdftoppm', ['-r', String(dpi), '-gray', file, join(dir, name)]);
  const out: Page[] = [];
  for (const f of readdirSync(dir)
    .filter((f) => f.startsWith(`${name}-`) && f.endsWith('.pgm'))
    .sort()) {
    const b = readFileSync(join(dir, f));
    const m = /^P5\s+(\d+)\s+(\d+)\s+255\s/.exec(b.subarray(0, 40).toString('latin1'));
    if (!m) throw new Error(`${f} is not a grey image`);
    out.push({ w: Number(m[1]), h: Number(m[2]), px: b.subarray(m[0].length) });
  }
  const text = execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });
  return { pages: out, text };
}

const at = (p: Page, x: number, y: number) =>
  x < 0 || y < 0 || x >= p.w || y >= p.h ? 255 : p.px[y * p.w + x]!;
/** The darkest pixel of a small patch. */
const darkest = (p: Page, x0: number, x1: number, y0: number, y1: number) => {
  let d = 255;
  for (let y = y0; y <= y1; y++) for (let x = x0; x <= x1; x++) d = Math.min(d, at(p, x, y));
  return d;
};

/** Ink (any pixel darker than the paper's light greys) in the rightmost 4% of the page. */
function inkInRightStrip(p: Page): number {
  let n = 0;
  for (let y = 0; y < p.h; y++) for (let x = Math.floor(p.w * 0.96); x < p.w; x++) if (at(p, x, y) < 200) n++;
  return n;
}

/**
 * The bordered boxes whose right side is lost or fainter than their left: a box's top or bottom border
 * is a long horizontal line with a vertical border going down (or up) from its left end; the right end
 * must have one as dark.
 */
function boxes(p: Page): { open: string[]; closed: number } {
  const open: string[] = [];
  let closed = 0;
  for (let y = 0; y < p.h; y++) {
    let x = 0;
    while (x < p.w) {
      if (at(p, x, y) >= 220) {
        x++;
        continue;
      }
      const start = x;
      while (x < p.w && at(p, x, y) < 220) x++;
      const end = x - 1;
      if (end - start < p.w * 0.2) continue;
      // A vertical side: dark pixels in the rows below (a top border) or above (a bottom border).
      const side = (cx: number) =>
        Math.min(darkest(p, cx - 2, cx + 2, y + 3, y + 6), darkest(p, cx - 2, cx + 2, y - 6, y - 3));
      const left = side(start);
      if (left >= 220) continue;
      const right = side(end);
      if (right >= 220 || right > left + 25)
        open.push(`y=${y} x=${start}..${end} left=${left} right=${right}`);
      else closed++;
    }
  }
  return { open, closed };
}

/** The texts of a page's headings (h2 to h4), as pdftotext gives them. */
function headings(html: string): Set<string> {
  const out = new Set<string>();
  for (const m of html.matchAll(/<h[234][^>]*>([\s\S]*?)<\/h[234]>/g)) {
    const text = m[1]!
      .replace(/<[^>]+>/g, '')
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&amp;/g, '&')
      .trim();
    out.add(text);
  }
  return out;
}

/** How far down the page its body's ink goes (0 to 1), the footer's band left out. */
function bodyDepth(p: Page): number {
  const footer = Math.floor(p.h * (1 - 18 / 279.4));
  for (let y = footer - 1; y >= 0; y--) for (let x = 0; x < p.w; x++) if (at(p, x, y) < 200) return y / p.h;
  return 0;
}

describe.skipIf(!can)('printed documents: headings with their content, no near-empty page', () => {
  for (const [name, html] of [
    ['report', reportHtml],
    ['notice', noticeHtml],
  ] as const) {
    it(`the ${name}: no page ends on a heading or a label; every page but the last is at least half full`, async () => {
      const page = html();
      const heads = headings(page);
      expect(heads.size).toBeGreaterThan(3);
      const { pages: ps, text } = await pages(`flow_${name}`, page, 40);
      const texts = text.split('\f').slice(0, ps.length);
      const ends = texts.map((t, i) => {
        const lines = t
          .split('\n')
          .map((l) => l.trim())
          .filter((l) => l !== '' && !/^Page \d+ of \d+$/.test(l) && !/\s{2,}Page \d+ of \d+$/.test(l));
        const last = lines.at(-1) ?? '';
        return { page: i + 1, last };
      });
      const orphaned = ends
        .slice(0, -1)
        .filter((e) => [...heads].some((h) => h !== '' && e.last.startsWith(h)) || e.last.endsWith(':'));
      expect(orphaned).toEqual([]);
      const shallow = ps
        .slice(0, -1)
        .map((p, i) => ({ page: i + 1, depth: bodyDepth(p) }))
        .filter((d) => d.depth < 0.5);
      expect(shallow).toEqual([]);
    }, 180_000);
  }
});

describe.skipIf(!can)('printed documents: nothing clipped at the right margin', () => {
  for (const [name, html, footer] of [
    ['report', reportHtml, 'Compliance report'],
    ['notice', noticeHtml, 'Notice of violation'],
    ['order', orderHtml, 'Stop-work order'],
  ] as const) {
    it(`the ${name}: every box closed, nothing in the right margin, its own footer`, async () => {
      const { pages: ps, text } = await pages(name, html());
      expect(ps.length).toBeGreaterThan(0);
      const seen = ps.map((p, i) => ({ page: i + 1, ...boxes(p), strip: inkInRightStrip(p) }));
      expect(seen.filter((b) => b.open.length > 0 || b.strip > 0)).toEqual([]);
      // Boxes were found and checked, so the check is not empty.
      expect(seen.reduce((n, b) => n + b.closed, 0)).toBeGreaterThan(5);
      const footers = text.split('\f').filter((t) => t.trim() !== '');
      for (const t of footers) expect(t).toContain(footer);
      if (name !== 'report') expect(text).not.toContain('Compliance report');
    }, 180_000);
  }
});
