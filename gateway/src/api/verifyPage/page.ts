/**
 * The script of verify.html: a clerk gives the report's JSON file (dropped, or chosen with the file
 * input) and pastes the town's public key; the page runs the very checks `npm run verify` runs
 * (`verifier/verify.ts`, bundled in) and shows "Verified", or what does not match, each in words with the
 * field of the report's JSON beside it, small. Nothing leaves the page: its Content-Security-Policy
 * allows no connection at all.
 */
import { formatDay, formatLong } from '../../../../shared/src/time.ts';
import { keyFromText, readReport, type Verdict, verifyReport } from '../../verifier/verify.ts';
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
}

function problemItem(p: Problem): HTMLLIElement {
  const li = el('li');
  const field = el('code', p.field, 'field');
  field.title = "Where in the report's file";
  li.append(el('span', `${p.message}.`), field);
  return li;
}

/** What was checked: the site and period, the records by kind, the checkpoint and who signed it. */
function checkedItems(v: Verdict, raw: Record<string, unknown>): string[] {
  const c = v.checked;
  const period = raw.period as { firstDay?: string; lastDay?: string } | undefined;
  const made = Date.parse(String(raw.generatedAt));
  const items: string[] = [];
  const days =
    period?.firstDay && period.lastDay
      ? `, ${formatDay(period.firstDay)} to ${formatDay(period.lastDay)}`
      : '';
  items.push(
    `The report of site '${v.words.site}'${days}${Number.isFinite(made) ? `, made ${formatLong(made, v.words.tz)}` : ''}.`,
  );
  const kinds = [
    count(c.readings, 'reading'),
    count(c.storms, 'storm'),
    count(c.duties, 'duty', 'duties'),
    count(c.inspections, 'inspection'),
    ...(c.violations > 0 ? [count(c.violations, 'notice of violation', 'notices of violation')] : []),
    ...(c.stopWork > 0 ? [count(c.stopWork, 'stop-work order')] : []),
    ...(c.changes > 0 ? [count(c.changes, 'change')] : []),
  ];
  items.push(
    `${kinds.slice(0, -1).join(', ')} and ${kinds.at(-1)}: ${count(c.entries, 'record')} of the evidence log, each against its fingerprint, and the one proof that they are all in the log.`,
  );
  if (v.checkpoint.size >= 0 && v.key)
    items.push(
      `The log's signed checkpoint: ${count(v.checkpoint.size, 'entry', 'entries')}, signed by '${v.key.name}' (key id ${v.key.id}).`,
    );
  else items.push("The log's signed checkpoint could not be checked with the key given.");
  for (const n of v.notes) items.push(`Checked less than in full: ${n}.`);
  return items;
}

function showResult(v: Verdict, raw: Record<string, unknown>): void {
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
  checkedList.replaceChildren(...checkedItems(v, raw).map((t) => el('li', t)));
  checkedBox.hidden = false;
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
    verdict = await verifyReport(report, keyFromText(keyBox.value));
  } catch (e) {
    if (mine === run) showVerdict('bad', 'Not verified', `${given.name}: ${(e as Error).message}.`);
    return;
  }
  if (mine === run) showResult(verdict, raw);
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
