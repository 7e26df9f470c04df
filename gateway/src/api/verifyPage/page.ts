/**
 * The script of verify.html: a clerk gives the report's JSON file (dropped, or chosen with the file
 * input) and pastes the town's public key; the page runs the very checks `npm run verify` runs
 * (`verifier/verify.ts`, bundled in) and shows "Verified", or what does not match, each in words with the
 * field of the report's JSON beside it, small. Nothing leaves the page: its Content-Security-Policy
 * allows no connection at all.
 */
import { formatDay, formatLong } from '../../../../shared/src/time.ts';
import { keyFromText, provedWords, readReport, type Verdict, verifyReport } from '../../verifier/verify.ts';
import type { Problem } from '../../verifier/words.ts';

const byId = <T extends HTMLElement>(id: string): T => {
  const el = document.getElementById(id);
  if (!el) throw new Error(`the page has no #${id}`);
  return el as T;
};

const form = byId<HTMLFormElement>('check');
const drop = byId('drop');
const fileInput = byId<HTMLInputElement>('file');
const fileName = byId('file-name');
const keyBox = byId<HTMLTextAreaElement>('key');
const result = byId('result');
const verdictBox = byId('verdict');
const problemList = byId<HTMLOListElement>('problems');
const checkedBox = byId('checked');
const checkedList = byId<HTMLUListElement>('checked-list');
const checkedTitle = byId('checked-title');
const keyBoxOut = byId('key-print');

/** The report file given, read as text. */
let given: { name: string; text: string } | undefined;
/** Each check's number: an answer that arrives after a newer check started is dropped. */
let run = 0;

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  text?: string,
  className?: string,
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (className) e.className = className;
  return e;
}

const count = (n: number, one: string, many = `${one}s`) =>
  `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

function showVerdict(kind: 'ok' | 'bad' | 'wait', title: string, text: string): void {
  result.hidden = false;
  verdictBox.className = `verdict ${kind}`;
  verdictBox.replaceChildren(el('strong', title), el('span', text));
  problemList.replaceChildren();
  checkedBox.hidden = true;
  keyBoxOut.hidden = true;
}

function problemItem(p: Problem): HTMLLIElement {
  const li = el('li');
  const field = el('code', p.field, 'field');
  field.title = "Where in the report's file";
  li.append(el('span', `${p.message}.`), field);
  return li;
}

/** What was checked (of a verified report: proved): the site and period, then the verifier's own sentences. */
function checkedItems(v: Verdict, raw: Record<string, unknown>): string[] {
  const period = raw.period as { firstDay?: string; lastDay?: string } | undefined;
  const made = Date.parse(String(raw.generatedAt));
  const days =
    period?.firstDay && period.lastDay
      ? `, ${formatDay(period.firstDay)} to ${formatDay(period.lastDay)}`
      : '';
  return [
    `The report of site '${v.words.site}'${days}${Number.isFinite(made) ? `, made ${formatLong(made, v.words.tz)}` : ''}.`,
    ...provedWords(v),
    ...v.notes.map((n) => `Checked less than in full: ${n}.`),
  ];
}

/** The key pasted and its fingerprint, to compare with the one the town publishes. */
function keyItems(v: Verdict, pasted: string): Node[] {
  if (!v.key) return [];
  const print = el('p');
  print.append('Its fingerprint: ', el('strong', v.key.fingerprint, 'fingerprint'));
  return [
    el('h2', 'The key you pasted'),
    el('code', pasted, 'key-line'),
    print,
    el(
      'p',
      "Compare this fingerprint with the one the town publishes (on its website, its notices or the dashboard's Evidence section). If they differ, the key is not the town's, and neither is this result.",
      'help',
    ),
  ];
}

function showResult(v: Verdict, raw: Record<string, unknown>, pasted: string): void {
  if (v.ok)
    showVerdict(
      'ok',
      'Verified',
      "This report matches the town's evidence log: the log's checkpoint is signed with the key you pasted, every record the report carries is in that log, and every figure it shows follows from those records.",
    );
  else {
    const n = v.problems.length;
    showVerdict(
      'bad',
      'Not verified',
      `${n === 1 ? 'One thing' : `${n} things`} in this report ${n === 1 ? 'does' : 'do'} not match the town's evidence log or the key you pasted. Do not rely on the report until it is explained:`,
    );
    problemList.replaceChildren(...v.problems.map(problemItem));
  }
  checkedTitle.textContent = v.ok ? 'What it proved' : 'What was checked';
  checkedList.replaceChildren(...checkedItems(v, raw).map((t) => el('li', t)));
  checkedBox.hidden = false;
  keyBoxOut.replaceChildren(...keyItems(v, pasted));
  keyBoxOut.hidden = !v.key;
  // On a phone the verdict is below the form: brought into view.
  verdictBox.scrollIntoView({ block: 'start' });
}

async function check(): Promise<void> {
  const mine = ++run;
  if (!given) {
    showVerdict('wait', 'Nothing to check yet', "Choose or drop the report's JSON file first.");
    fileInput.focus();
    return;
  }
  if (keyBox.value.trim() === '') {
    showVerdict('wait', 'Nothing to check yet', "Paste the town's public key first.");
    keyBox.focus();
    return;
  }
  showVerdict('wait', 'Checking…', `Checking ${given.name}.`);
  let raw: Record<string, unknown>;
  let verdict: Verdict;
  let pasted = '';
  try {
    raw = JSON.parse(given.text) as Record<string, unknown>;
  } catch (e) {
    showVerdict(
      'bad',
      'Not verified',
      `${given.name} cannot be read as JSON (${(e as Error).message}). Choose the report's JSON file (its verifiable copy), not the printable page or the CSV.`,
    );
    return;
  }
  try {
    const report = readReport(raw);
    pasted = keyFromText(keyBox.value);
    verdict = await verifyReport(report, pasted);
  } catch (e) {
    if (mine === run) showVerdict('bad', 'Not verified', `${given.name}: ${(e as Error).message}.`);
    return;
  }
  if (mine === run) showResult(verdict, raw, pasted);
}

async function take(file: File | undefined): Promise<void> {
  if (!file) return;
  given = { name: file.name, text: await file.text() };
  fileName.textContent = `Report file: ${file.name} (${count(Math.ceil(file.size / 1024), 'kB', 'kB')})`;
  if (keyBox.value.trim() !== '') await check();
}

fileInput.addEventListener('change', () => void take(fileInput.files?.[0]));
drop.addEventListener('dragover', (e) => {
  e.preventDefault();
  drop.classList.add('over');
});
drop.addEventListener('dragleave', () => drop.classList.remove('over'));
drop.addEventListener('drop', (e) => {
  e.preventDefault();
  drop.classList.remove('over');
  void take(e.dataTransfer?.files[0]);
});
// A file dropped beside the zone is not opened in place of the page.
window.addEventListener('dragover', (e) => e.preventDefault());
window.addEventListener('drop', (e) => e.preventDefault());
keyBox.addEventListener('change', () => {
  if (given) void check();
});
form.addEventListener('submit', (e) => {
  e.preventDefault();
  void check();
});
