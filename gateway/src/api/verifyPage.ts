/**
 * verify.html: one self-contained page that checks a compliance report's JSON against the town's public
 * key in a browser, offline, with the same code as `npm run verify` (`verifier/verify.ts`, bundled by
 * esbuild with the page's script, `verifyPage/page.ts`). Script and style are inlined; the page carries
 * its own Content-Security-Policy in a <meta> element (opened from a file there is no header): only that
 * script and that style, by their SHA-256, and no connection at all (`connect-src 'none'`), so it
 * provably sends nothing anywhere. The gateway serves it at GET /verify.html (`plugins/verifyPage.ts`)
 * with the same policy as a header, and `npm run build` writes it to dist/verify.html.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { ROOT } from '../paths.ts';

const DIR = join(ROOT, 'gateway/src/api/verifyPage');

export interface VerifyPage {
  html: string;
  /** The policy of the page served over HTTP: the <meta> one, and no framing (which <meta> cannot say). */
  headerCsp: string;
}

const hashOf = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/** The page's policy: its one script and one style, nothing loaded, nothing sent, no form posted. */
export function verifyPageCsp(script: string, style: string): string {
  return [
    "default-src 'none'",
    `script-src ${hashOf(script)}`,
    `style-src ${hashOf(style)}`,
    'img-src data:',
    "connect-src 'none'",
    "form-action 'none'",
    "base-uri 'none'",
    "object-src 'none'",
  ].join('; ');
}

/** The page's script: verifier/verify.ts and the page's own code, one classic script for the browser. */
async function bundleScript(): Promise<string> {
  const out = await build({
    entryPoints: [join(DIR, 'page.ts')],
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    legalComments: 'none',
    logLevel: 'silent',
  });
  const file = out.outputFiles[0];
  if (!file) throw new Error('esbuild produced no output for verify.html');
  // Inside a <script> element the text must not close it or open an HTML comment.
  const code = file.text.replace(/<\/(script)/gi, '<\\/$1');
  if (code.includes('<!--'))
    throw new Error('the verify.html script holds "<!--", which an inline script cannot');
  return code;
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/** Builds the page (a few tens of milliseconds). */
export async function buildVerifyPage(): Promise<VerifyPage> {
  const script = await bundleScript();
  const style = readFileSync(join(DIR, 'page.css'), 'utf8');
  const csp = verifyPageCsp(script, style);
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${esc(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<link rel="icon" href="data:,">
<title>Check a compliance report</title>
<style>${style}</style>
</head>
<body>
<main>
<h1>Check a compliance report</h1>
<p class="lead">This page checks that a compliance report is what the town's monitoring gateway logged and signed: its figures, its records and the signature on them. It works offline, on this computer alone: nothing you give it is sent anywhere.</p>
<form id="check" novalidate>
<section class="step">
<h2>1. The report's file</h2>
<div id="drop" class="drop">
<p>Drop the report's JSON file here, or</p>
<input type="file" id="file" class="visually-hidden" accept=".json,application/json">
<label for="file" class="button secondary">Choose the file…</label>
<p id="file-name" class="muted">No file chosen yet.</p>
</div>
<p class="help">It is the report's verifiable copy: "Verifiable file (JSON)" beside the report on the dashboard, a file ending in .json. The printable page and the CSV cannot be checked.</p>
</section>
<section class="step">
<h2>2. The town's public key</h2>
<label for="key">Paste it here</label>
<textarea id="key" rows="3" spellcheck="false" autocomplete="off" autocapitalize="off" placeholder="town-of-x.gateway/evidence+1a2b3c4d+AbCd…"></textarea>
<p class="help">One line: a name, a plus sign, an 8-character key id, a plus sign, the key. Get it from the town, not from the report: the town publishes it, and the gateway gives it at <code>/api/evidence/key</code> (its "verifierKey"; pasting that whole answer works too).</p>
</section>
<button type="submit">Check the report</button>
</form>
<section id="result" aria-live="polite" hidden>
<div id="verdict" class="verdict wait"></div>
<ol id="problems" class="problems"></ol>
<div id="checked" class="checked" hidden>
<h2 id="checked-title">What was checked</h2>
<ul id="checked-list"></ul>
</div>
<div id="key-print" class="key-print" hidden></div>
</section>
</main>
<script>${script}</script>
</body>
</html>
`;
  return { html, headerCsp: `${csp}; frame-ancestors 'none'` };
}
