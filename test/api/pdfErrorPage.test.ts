/**
 * The page a browser gets for a PDF the gateway cannot make (a report's or a notice's link): words, and
 * the printable page's link; a program asking for JSON still gets the catalogue's error.
 */
import { describe, expect, it } from 'vitest';
import { pdfErrorPage, wantsPdfErrorPage } from '../../gateway/src/api/pdfErrorPage.ts';

const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const notice = '/api/violations/nov-7/document?format=pdf';

describe('the page for a PDF that cannot be made', () => {
  it('answers a browser following a PDF link, and nothing else', () => {
    expect(wantsPdfErrorPage('PDF_UNAVAILABLE', { url: notice, headers: { accept: BROWSER } })).toBe(true);
    expect(wantsPdfErrorPage('PDF_FAILED', { url: notice, headers: { accept: BROWSER } })).toBe(true);
    expect(
      wantsPdfErrorPage('PDF_UNAVAILABLE', { url: notice, headers: { accept: 'application/json' } }),
    ).toBe(false);
    expect(wantsPdfErrorPage('PDF_UNAVAILABLE', { url: notice, headers: {} })).toBe(false);
    expect(wantsPdfErrorPage('NOT_FOUND', { url: notice, headers: { accept: BROWSER } })).toBe(false);
    const html = notice.replace('format=pdf', 'format=html');
    expect(wantsPdfErrorPage('REPORTS_BUSY', { url: html, headers: { accept: BROWSER } })).toBe(false);
  });

  it('says why in words and links the same document as a printable page', () => {
    const page = pdfErrorPage('PDF_UNAVAILABLE', notice);
    expect(page).toContain(
      '<a href="/api/violations/nov-7/document?format=html">open the printable page</a>',
    );
    expect(page).toMatch(/Chromium, the program that prints its pages to PDF, is not installed on it/);
    expect(page).not.toMatch(/PDF_UNAVAILABLE|501|error/i);
    expect(pdfErrorPage('REPORTS_BUSY', notice)).toMatch(/busy printing other reports and notices/);
    expect(pdfErrorPage('PDF_FAILED', notice)).toMatch(/could not print this document to PDF this time/);
  });

  it('escapes what the address carries', () => {
    const page = pdfErrorPage(
      'PDF_UNAVAILABLE',
      '/api/reports/compliance?siteId=%22%3E%3Cscript%3E&format=pdf',
    );
    expect(page).not.toContain('<script>');
    expect(page).toContain('siteId=%22%3E%3Cscript%3E&amp;format=html');
  });
});
