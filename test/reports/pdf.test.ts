/**
 * Printing a report to PDF (reports/pdf.ts): the configured Chromium or none (never another one in its
 * place), the usual places otherwise; a Chromium that fails says why, one that hangs is ended with every
 * process it started; and the real one prints a page, margin boxes included.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../gateway/src/config/load.ts';
import { CHROMIUM_CANDIDATES, findChromium, htmlToPdf, PdfFailed } from '../../gateway/src/reports/pdf.ts';
import { haveBinary, waitFor } from '../helpers/env.ts';

const dir = mkdtempSync(join(tmpdir(), 'report-pdf-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A stand-in for Chromium: a shell script. */
function fake(name: string, body: string): string {
  const path = join(dir, name);
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw e;
  }
};

describe('finding Chromium', () => {
  it('uses the configured one, or none when it is missing', () => {
    const there = new Set(['/opt/chromium', CHROMIUM_CANDIDATES[0]!]);
    const exists = (p: string) => there.has(p);
    expect(findChromium('/opt/chromium', exists)).toBe('/opt/chromium');
    expect(findChromium('/nowhere/chromium', exists)).toBeUndefined();
  });

  it('is configured by reports.chromium, or by CHROMIUM_PATH over it', () => {
    const file = { gatewayId: 'gw', reports: { chromium: '/opt/chromium' } };
    expect(parseConfig(file).reports.chromium).toBe('/opt/chromium');
    expect(parseConfig(file, { CHROMIUM_PATH: '/usr/lib/chromium/chromium' }).reports.chromium).toBe(
      '/usr/lib/chromium/chromium',
    );
    expect(parseConfig({ gatewayId: 'gw' }).reports.chromium).toBeUndefined();
  });

  it('looks in the usual places when none is configured', () => {
    expect(findChromium(undefined, (p) => p === CHROMIUM_CANDIDATES[1])).toBe(CHROMIUM_CANDIDATES[1]);
    expect(findChromium(undefined, () => false)).toBeUndefined();
  });
});

describe('printing with Chromium', () => {
  it('says why a Chromium that fails wrote no PDF, with its last words', async () => {
    const bin = fake('failing', 'echo "[1:1:ERROR] cannot open display" >&2\nexit 3');
    const err = await htmlToPdf('<p>x</p>', { chromium: bin, timeoutMs: 30_000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PdfFailed);
    expect((err as Error).message).toBe('Chromium stopped with code 3: [1:1:ERROR] cannot open display');
  });

  it('refuses what is not a PDF', async () => {
    const bin = fake(
      'wrong',
      'for a in "$@"; do case "$a" in --print-to-pdf=*) echo "not a pdf" > "$(echo "$a" | cut -d= -f2-)";; esac; done',
    );
    await expect(htmlToPdf('<p>x</p>', { chromium: bin, timeoutMs: 30_000 })).rejects.toThrow(
      'Chromium wrote no PDF',
    );
  });

  it('ends a Chromium that does not finish, and every process it started', async () => {
    const pids = join(dir, 'pids');
    // The stand-in starts a helper, as Chromium starts its renderers, and both hang.
    const bin = fake('hanging', `sleep 300 & echo $$ $! > ${pids}\nwait`);
    const err = await htmlToPdf('<p>x</p>', { chromium: bin, timeoutMs: 1000 }).catch((e: unknown) => e);
    expect((err as Error).message).toBe('Chromium did not finish the PDF within 1 second');
    const [main, helper] = readFileSync(pids, 'utf8').trim().split(' ').map(Number) as [number, number];
    await waitFor(() => !alive(main) && !alive(helper), 10_000, 'the stand-in and its helper to end');
  });

  it.skipIf(!haveBinary('chromium') || !haveBinary('pdftotext'))(
    'prints a page with its margin boxes and an SVG',
    async () => {
      const html = `<!doctype html><html><head><style>@page{margin:20mm;@bottom-right{content:"Page " counter(page) " of " counter(pages)}}
h2{break-before:page}</style></head><body><h1>First</h1><h2>Second</h2>
<svg width="200" height="40"><text x="5" y="20">0.5 in threshold</text></svg></body></html>`;
      const pdf = await htmlToPdf(html, { chromium: findChromium(undefined)!, timeoutMs: 120_000 });
      expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
      const file = join(dir, 'page.pdf');
      writeFileSync(file, pdf);
      const text = execFileSync('pdftotext', [file, '-'], { encoding: 'utf8' });
      expect(text).toContain('Page 1 of 2');
      expect(text).toContain('Page 2 of 2');
      expect(text).toContain('0.5 in threshold');
    },
    150_000,
  );
});
