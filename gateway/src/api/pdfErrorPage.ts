/**
 * A PDF link followed in a browser (a report's or a notice's) that the gateway cannot answer with a PDF:
 * a page in words saying why and linking to the printable page, instead of the API's error as JSON.
 * Asked for by a program (no `text/html` in Accept), the answer stays the JSON error of the catalogue.
 */
import type { FastifyRequest } from 'fastify';

const PDF_CODES = new Set(['PDF_UNAVAILABLE', 'PDF_FAILED', 'REPORTS_BUSY']);

const escapeHtml = (s: string) =>
  s.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );

/** Whether the error, answering this request, is better a page: a PDF asked for by a browser. */
export function wantsPdfErrorPage(code: string, req: Pick<FastifyRequest, 'url' | 'headers'>): boolean {
  if (!PDF_CODES.has(code)) return false;
  const q = new URL(req.url, 'http://gateway').searchParams;
  return q.get('format') === 'pdf' && (req.headers.accept ?? '').includes('text/html');
}

/** The page: why there is no PDF, and the printable page's link (the same address, format=html). */
export function pdfErrorPage(code: string, requestUrl: string): string {
  const u = new URL(requestUrl, 'http://gateway');
  u.searchParams.set('format', 'html');
  const printable = `${u.pathname}${u.search}`;
  const why =
    code === 'PDF_UNAVAILABLE'
      ? 'This gateway cannot make PDF files: Chromium, the program that prints its pages to PDF, is not installed on it. The gateway’s administrator can install it.'
      : code === 'REPORTS_BUSY'
        ? 'The gateway is busy printing other reports and notices. Try again in a few seconds.'
        : 'The gateway could not print this document to PDF this time. Try again in a minute.';
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>No PDF</title></head>
<body>
<h1>The PDF could not be made</h1>
<p>${escapeHtml(why)}</p>
<p>The same document is ready as a printable page: <a href="${escapeHtml(printable)}">open the printable page</a>, then print it and choose “Save as PDF” as the printer.</p>
</body>
</html>
`;
}
