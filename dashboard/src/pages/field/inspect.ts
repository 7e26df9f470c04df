/**
 * Recording an inspection (storm, routine, annual, cleanout, other), in the field too: a construction
 * site's practices as a checklist with photos, and, without a connection, the inspection kept on this
 * phone until the gateway has it (`outbox.ts`). Nothing is said to be recorded before the gateway
 * answered that it stored it.
 */
import type { InspectionRecorded } from '../../../../shared/src/api/alerts.ts';
import type { InspectionSide } from '../../../../shared/src/api/inspectionWords.ts';
import { errorDetail } from '../../api.js';
import { type FieldSite, fieldCopy } from '../../field-copy.js';
import { noConnection, probeGateway, session } from '../../session.js';
import { homeZone, ruleLabel, state } from '../../state.js';
import { byId, h, replace } from '../../ui/dom.js';
import { formatTime, utcToZonedInput, zonedToUtc } from '../../ui/format.js';
import { clearChecklist, fillChecklist, readFindings, renderChecklist } from './inspection-form.js';
import {
  discard,
  flushOutbox,
  keep,
  newClientId,
  type OutboxEvent,
  onOutbox,
  type QueuedInspection,
  retryDelay,
  trySend,
} from './outbox.js';
import { type OutboxForm, renderOutbox } from './outbox-list.js';
import { drawSide, sideWords } from './side.js';
import {
  clearSignature,
  fillSignature,
  readSignature,
  renderSignature,
  suggestSignatureName,
} from './signature-pad.js';
import { drawWastewaterFor, readWastewater, type WastewaterFill } from './wastewater-form.js';

const field = (id: string) => byId(id) as HTMLInputElement;

const SAVED_HERE = 'Saved on this phone, not yet sent — it will be sent when the connection returns.';

/** The kinds of inspection in words, as the form's menu names them. */
const kindWord = (kind: string) =>
  [...(byId('i-kind') as HTMLSelectElement).options].find((o) => o.value === kind)?.text ?? kind;

/**
 * The refused inspection being fixed in the form. Fixed, it goes under a new id: nothing was recorded
 * under the old one, or something else was (the gateway refuses a changed resend under the same id).
 */
let fixing: string | undefined;
/** The sites the form offers: the page's, or, until it has read them, those kept on this phone. */
const formSites = (): readonly FieldSite[] => (state.loaded ? state.sites : (fieldCopy()?.sites ?? []));
const formSite = (id: string) => formSites().find((s) => s.id === id);
const formZone = (id: string) => formSite(id)?.timezone ?? 'UTC';

/** What the outbox last did with each inspection, by its id. */
const results: Map<string, OutboxEvent> = new Map();
/** The inspection this form is sending now: its words come from submit(). */
let submitting: string | undefined;
/** The checklist drawn: for which site and practices. */
let drawnFor = '';

function zoneHint() {
  byId('i-at-zone').textContent = `(${formZone(field('i-site').value)})`;
}

function drawChecklist(force = false) {
  const site = formSite(field('i-site').value);
  const key = `${site?.id ?? ''}|${JSON.stringify(site?.practices ?? [])}`;
  if (key === drawnFor && !force) return;
  drawnFor = key;
  renderChecklist(byId('i-checklist'), site?.practices);
}

/** The wastewater part (deficiencies, a hauler) for the site and kind chosen. */
const drawWastewater = (force = false, fill?: WastewaterFill) =>
  drawWastewaterFor(
    byId('i-wastewater'),
    formSite(field('i-site').value),
    field('i-kind').value,
    force,
    fill,
  );

/** The signed-in person's name, as the inspector (a script's token is no person: left empty). */
function defaultInspector() {
  if (!field('i-inspector').value && session.me?.via === 'session')
    field('i-inspector').value = session.me.name;
  suggestSignatureName(field('i-inspector').value.trim());
}

/** The developer's storm and routine inspections are signed (the form asks; the API does not). */
const mustSign = () =>
  ['storm', 'routine'].includes(field('i-kind').value) && field('i-side').value === 'developer';

export function initInspectionForm() {
  const sel = byId('i-site') as HTMLSelectElement;
  const keepSite = sel.value;
  replace(
    sel,
    formSites().map((s) => h('option', { value: s.id }, s.name)),
  );
  if (keepSite) sel.value = keepSite;
  if (!byId('i-signature').childElementCount) renderSignature(byId('i-signature'));
  if (!field('i-at').value) field('i-at').value = utcToZonedInput(Date.now(), formZone(sel.value));
  defaultInspector();
  drawSide();
  zoneHint();
  drawChecklist();
  drawWastewater();
  showFieldMode();
}

/**
 * The gateway cannot be reached and the page has not read the sites: the form works from the copy kept
 * on this phone, says so and when the copy was taken, and saves on this phone. Otherwise the line is gone.
 */
function showFieldMode() {
  const on = !state.loaded && noConnection();
  const line = byId('field-mode');
  line.hidden = !on;
  byId('i-submit').textContent = on ? 'Save on this phone' : 'Record inspection';
  if (!on) return;
  const copy = fieldCopy();
  const left = copy?.left
    ? ` ${copy.left} site${copy.left === 1 ? ' was' : 's were'} too many to keep on this phone.`
    : '';
  line.textContent = copy?.sites.length
    ? `The gateway cannot be reached — working from the copy kept on this phone, taken ${formatTime(copy.takenAt, homeZone(copy.sites))}. An inspection saved now stays on this phone and is sent when the gateway can be reached.${left}`
    : 'The gateway cannot be reached, and this phone keeps no copy of the sites: open the page once with a connection to keep one. The inspections saved on this phone are below; they are sent when the gateway can be reached.';
}

/** Sets the form's site (and the kind of inspection, when given: #/inspect/<site>/<kind>). */
export function presetInspectionSite(siteId: string, kind = '') {
  const sel = byId('i-site') as HTMLSelectElement;
  if (formSites().some((s) => s.id === siteId) && sel.value !== siteId) {
    sel.value = siteId;
    siteChanged();
  }
  const kinds = byId('i-kind') as HTMLSelectElement;
  if (kind && [...kinds.options].some((o) => o.value === kind)) kinds.value = kind;
  zoneHint();
  drawChecklist();
  drawWastewater();
}

function siteChanged() {
  field('i-at').value = utcToZonedInput(Date.now(), formZone(field('i-site').value));
  zoneHint();
  drawChecklist();
  drawWastewater();
}

function say(text: string, kind: 'ok' | 'bad' | 'warn' | '' = '', detail = '') {
  const out = byId('inspect-result');
  out.className = kind ? `msg msg-${kind}` : 'msg';
  out.textContent = text;
  out.title = detail;
}

function recordedWords(res: InspectionRecorded, sent: boolean) {
  const tz = formZone(res.inspection.siteId);
  const closed = res.closedAlertIds.length;
  // The rules of the alerts it closed, as far as the page knows them (those it holds as active).
  const rules = [
    ...new Set(
      res.closedAlertIds.flatMap((id) => {
        const a = state.active.get(id);
        return a ? [ruleLabel(a.rule)] : [];
      }),
    ),
  ];
  const site = formSite(res.inspection.siteId)?.name ?? 'the site';
  const at = formatTime(res.inspection.at, tz);
  return `${sent ? `Sent: the inspection of ${site} at ${at} is recorded.` : `Recorded inspection ${res.inspection.id} at ${at}.`}${sideWords(res.inspection)}${
    closed
      ? ` It closed ${closed} alert${closed === 1 ? '' : 's'}${rules.length ? ` (${rules.join(', ')})` : ''}.`
      : ''
  }`;
}

/** The inspection typed in the form, or what is missing, in words. */
function readForm(): QueuedInspection | string {
  const siteId = field('i-site').value;
  const at = zonedToUtc(field('i-at').value, formZone(siteId));
  const inspector = field('i-inspector').value.trim();
  const problems = [];
  if (!Number.isFinite(at)) problems.push('the time of the inspection');
  if (!inspector) problems.push("the inspector's name");
  if (problems.length) return `Please enter ${problems.join(' and ')}.`;
  if (at > Date.now() + 60_000)
    return 'The time of the inspection is in the future: check the date and time.';
  // Opened without a connection, who is signed in is not known yet: it is kept and sent once it is.
  if (!session.me && !session.unreached)
    return 'Sign in (or enter an API token at the top of the page) first.';
  const { findings, problem } = readFindings();
  if (problem) return problem;
  const { problem: wasteProblem, ...waste } = readWastewater();
  if (wasteProblem) return wasteProblem;
  const notes = field('i-notes').value.trim();
  // A wastewater inspection's deficiencies, remedied ones or hauler are something in it too.
  const wasteRecorded =
    (waste.deficiencies?.length ?? 0) + (waste.remedied?.length ?? 0) + (waste.hauler ? 1 : 0) > 0;
  if (!findings && !notes && !wasteRecorded)
    return 'Write down what was inspected and what was found: an inspection with nothing in it cannot be recorded.';
  const { signature, problem: signProblem } = readSignature(mustSign());
  if (signProblem) return signProblem;
  const site = formSite(siteId);
  const side = field('i-side').value as InspectionSide;
  return {
    clientId: newClientId(),
    queuedAt: Date.now(),
    siteId,
    ...(site ? { siteName: site.name, timezone: site.timezone } : {}),
    at: new Date(at).toISOString(),
    inspector,
    kind: field('i-kind').value as QueuedInspection['kind'],
    side,
    ...(notes ? { notes } : {}),
    ...(findings ? { findings } : {}),
    ...waste,
    ...(signature ? { signature } : {}),
  };
}

/** Puts an inspection back into the form (one the gateway refused, to fix it). */
function fillForm(e: QueuedInspection) {
  fixing = e.clientId;
  field('i-site').value = e.siteId;
  zoneHint();
  field('i-at').value = utcToZonedInput(Date.parse(e.at), formZone(e.siteId));
  field('i-inspector').value = e.inspector;
  (byId('i-kind') as HTMLSelectElement).value = e.kind;
  if (e.side) {
    (byId('i-side') as HTMLSelectElement).value = e.side;
    drawSide();
  }
  field('i-notes').value = e.notes ?? '';
  drawChecklist(true);
  fillChecklist(e.findings ?? []);
  drawWastewater(true, e);
  fillSignature(e.signature);
}

function clearForm() {
  fixing = undefined;
  field('i-notes').value = '';
  field('i-at').value = utcToZonedInput(Date.now(), formZone(field('i-site').value));
  clearChecklist();
  drawWastewater(true);
  clearSignature();
}

async function submit() {
  const entry = readForm();
  if (typeof entry === 'string') return say(entry, 'bad');
  say('Sending…');
  let kept = true;
  const replaces = fixing;
  try {
    await keep(entry);
  } catch (e) {
    // No storage on this phone (a private window, say): it can only be sent now.
    console.warn('the inspection could not be kept on this phone', e);
    kept = false;
  }
  if (kept && replaces) await discard(replaces);
  if (!kept) {
    const ev = await trySend(entry, false);
    if (ev.type === 'sent') {
      clearForm();
      return say(recordedWords(ev.recorded, false), 'ok');
    }
    const why =
      ev.type === 'refused' ? (ev.entry.refusal?.text ?? '') : ev.type === 'waiting' ? ev.reason : '';
    return say(
      `Not sent, and this phone cannot keep it: ${why}`,
      'bad',
      ev.type === 'refused' ? ev.entry.refusal?.detail : '',
    );
  }
  clearForm();
  // Who is signed in is not known yet (the gateway was not reached): it is sent once the gateway answers.
  if (session.unreached) {
    probeGateway(navigator.onLine);
    return say(SAVED_HERE, 'warn');
  }
  results.delete(entry.clientId);
  submitting = entry.clientId;
  try {
    await sendRound();
  } finally {
    submitting = undefined;
  }
  const ev = results.get(entry.clientId);
  if (ev?.type === 'sent') say(recordedWords(ev.recorded, false), 'ok');
  else if (ev?.type === 'refused') {
    fillForm(ev.entry);
    say(
      `Not recorded: ${ev.entry.refusal?.text ?? ''} Fix it here and record it again, or discard it below.`,
      'bad',
      ev.entry.refusal?.detail,
    );
  } else if (ev?.type === 'waiting' && !ev.offline)
    // Reached, but not taken for the moment (signed out, the gateway busy): what to do, in words.
    say(`Saved on this phone, not yet sent. ${ev.reason}`, 'warn');
  else say(SAVED_HERE, 'warn', ev?.type === 'waiting' ? ev.reason : '');
}

/** What the list of inspections waiting needs of the form. */
const outboxForm: OutboxForm = {
  site: formSite,
  kindWord,
  fix: fillForm,
  discarded: (clientId) => {
    if (fixing === clientId) clearForm();
  },
  // Who is signed in not known yet (the gateway not reached): asked at once, and sent once it answers.
  sendNow: () => (session.unreached ? probeGateway(true) : void sendRound()),
};

const showOutbox = () =>
  void renderOutbox(outboxForm).catch((e) =>
    console.warn('the inspections on this phone could not be read', e),
  );

export function bindInspectionForm() {
  const form = byId('inspect-form') as HTMLFormElement;
  field('i-site').addEventListener('change', siteChanged);
  byId('i-kind').addEventListener('change', () => drawWastewater());
  field('i-inspector').addEventListener('input', () =>
    suggestSignatureName(field('i-inspector').value.trim()),
  );
  field('i-side').addEventListener('change', () => {
    // Chosen by the person: kept for the next inspection, not reset to the town's.
    field('i-side').dataset.chosen = '1';
    drawSide();
  });
  byId('i-now').addEventListener('click', () => {
    field('i-at').value = utcToZonedInput(Date.now(), formZone(field('i-site').value));
  });
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    void submit().catch((err) => say(`This phone could not keep the inspection: ${errorDetail(err)}`, 'bad'));
  });
  onOutbox((ev) => {
    if (ev.type !== 'changed') results.set(ev.entry.clientId, ev);
    // An inspection sent from the queue (not the one just submitted: that one's words come from submit).
    if (ev.type === 'sent' && ev.entry.clientId !== submitting) say(recordedWords(ev.recorded, true), 'ok');
    showOutbox();
  });
}

/** Sends what waits on this phone now and whenever the connection returns; the person may be signed in. */
export function startOutbox() {
  window.addEventListener('online', () => {
    // Back online: a fresh start, soon again if the first tries fail.
    misses = 0;
    outboxChance();
  });
  if (noConnection() && !state.loaded) initInspectionForm();
  showFieldMode();
  showOutbox();
  outboxChance();
}

/** Rounds in a row that left inspections waiting, and the next try after them. */
let misses = 0;
let nextTry: ReturnType<typeof setTimeout> | undefined;
function tryAgainLater() {
  clearTimeout(nextTry);
  // Offline, the next chance is the connection's return (the 'online' event), not a timer.
  if (!navigator.onLine) return;
  misses += 1;
  nextTry = setTimeout(outboxChance, retryDelay(misses));
}

/**
 * Online again, or a person signed in (or a token given): the inspector's name, and a chance to send.
 * What is left waiting (the gateway busy, a connection that is not quite back, who is signed in not yet
 * known) is tried again by itself, soon and then once a minute.
 */
export function outboxChance() {
  defaultInspector();
  showFieldMode();
  if (!session.me || session.unreached) {
    clearTimeout(nextTry);
    // Opened without the gateway, the page does not know yet who is signed in: it asks until it answers.
    probeGateway();
    return;
  }
  void sendRound();
}

/** One round of sending; what it leaves waiting is tried again later by itself. */
async function sendRound(): Promise<void> {
  clearTimeout(nextTry);
  try {
    if ((await flushOutbox()) === 'settled') misses = 0;
    else tryAgainLater();
  } catch (e) {
    console.warn('sending the waiting inspections failed', e);
    tryAgainLater();
  }
}
