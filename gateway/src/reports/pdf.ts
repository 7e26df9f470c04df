/**
 * The report as PDF, printed by headless Chromium from the report's own page (stylesheet, running
 * header and charts inline, so nothing is fetched): the same document a person prints from the HTML,
 * with its page numbers. Chromium is found at `reports.chromium` (or the `CHROMIUM_PATH` environment
 * variable), else at the usual places of a Debian or Ubuntu system; a gateway without it answers PDF
 * requests with a clear 501, and the HTML report still prints to PDF from any browser.
 *
 * Each rendering is its own Chromium process with its own temporary profile, killed (with its children)
 * after `timeoutMs`; every caller runs it inside a place of the gateway's one queue of heavy jobs
 * (`jobs/queue.ts`), so no more are printed at once than the queue has places.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** Where Chromium is looked for when the configuration names none. */
export const CHROMIUM_CANDIDATES = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
];

/** The Chromium to print with: the configured one if it exists (never another), else the first found. */
export function findChromium(
  configured: string | undefined,
  exists: (p: string) => boolean = existsSync,
): string | undefined {
  if (configured !== undefined) return exists(configured) ? configured : undefined;
  return CHROMIUM_CANDIDATES.find(exists);
}

export class PdfFailed extends Error {
  override name = 'PdfFailed';
}

const STDERR_KEPT = 2000;

/** Prints an HTML page to PDF with Chromium; the PDF's bytes. Throws PdfFailed with Chromium's reason. */
export async function htmlToPdf(html: string, o: { chromium: string; timeoutMs: number }): Promise<Buffer> {
  const dir = await mkdtemp(join(tmpdir(), 'report-pdf-'));
  try {
    const page = join(dir, 'report.html');
    const out = join(dir, 'report.pdf');
    await writeFile(page, html);
    const args = [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--no-first-run',
      '--no-default-browser-check',
      '--disable-extensions',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      `--user-data-dir=${join(dir, 'profile')}`,
      `--print-to-pdf=${out}`,
      '--no-pdf-header-footer',
      pathToFileURL(page).href,
    ];
    await run(o.chromium, args, o.timeoutMs);
    const pdf = await readFile(out).catch((e: unknown) => {
      throw new PdfFailed(`Chromium wrote no PDF (${(e as Error).message})`);
    });
    if (pdf.subarray(0, 5).toString('latin1') !== '%PDF-') throw new PdfFailed('Chromium wrote no PDF');
    return pdf;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Runs Chromium in its own process group, so that a timeout ends it and every process it started. */
function run(bin: string, args: string[], timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d: string) => {
      stderr = (stderr + d).slice(-STDERR_KEPT);
    });
    const killGroup = () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch (e) {
        // Already gone: nothing is left to end.
        if ((e as NodeJS.ErrnoException).code !== 'ESRCH') throw e;
      }
    };
    const timer = setTimeout(() => {
      killGroup();
      const s = Math.round(timeoutMs / 1000);
      reject(new PdfFailed(`Chromium did not finish the PDF within ${s} second${s === 1 ? '' : 's'}`));
    }, timeoutMs);
    child.once('error', (e) => {
      clearTimeout(timer);
      reject(new PdfFailed(`Chromium could not be started: ${e.message}`));
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      // Helpers it left behind (a crashed renderer's zygote) go with it.
      killGroup();
      if (code === 0) resolve();
      else
        reject(
          new PdfFailed(
            `Chromium stopped with ${signal ? `signal ${signal}` : `code ${code}`}: ${lastLine(stderr)}`,
          ),
        );
    });
  });
}

const lastLine = (s: string) =>
  s
    .trim()
    .split('\n')
    .filter((l) => !/dbus|Fontconfig/i.test(l))
    .at(-1) ?? 'no message';
