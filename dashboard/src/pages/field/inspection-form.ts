/**
 * The checklist of an inspection form: each practice of a construction site (its silt fences, inlet
 * protection, entrance, traps), with what the inspector found (In order / Needs maintenance / Violation,
 * big enough to tap with a glove on), a note, and photos taken on the spot.
 */
import { FINDING_NOTE_MAX, PRACTICE_KIND_LABELS } from '../../../../shared/src/api/enforcementWords.ts';
import type { Practice } from '../../../../shared/src/api/findings.ts';
import {
  FINDING_STATUS_LABELS,
  FINDING_STATUSES,
  type FindingStatus,
} from '../../../../shared/src/api/inspectionWords.ts';
import { practicesInForce } from '../../../../shared/src/api/practiceWords.ts';
import { h, replace } from '../../ui/dom.js';
import { type PhotoPicker, photoPicker } from '../../ui/photo-picker.js';
import { PHOTO_MAX_SIDE } from '../../ui/photos.js';
import type { QueuedFinding } from './outbox.js';

let practices: Practice[] = [];
/** Each practice's photos, by practice id. */
const photos: Map<string, PhotoPicker> = new Map();
let holder: HTMLElement | undefined;

const statusWord = (s: FindingStatus) => FINDING_STATUS_LABELS[s];

function practiceBox(p: Practice, i: number) {
  const name = `f-${i}`;
  const picker = photoPicker(`${name}-photo`);
  photos.set(p.id, picker);
  return h(
    'fieldset',
    { class: 'practice', 'data-practice': p.id },
    h(
      'legend',
      null,
      p.label,
      p.label.toLowerCase().includes(PRACTICE_KIND_LABELS[p.kind].toLowerCase())
        ? null
        : h('span', { class: 'muted small' }, ` · ${PRACTICE_KIND_LABELS[p.kind]}`),
    ),
    h(
      'div',
      { class: 'choices' },
      FINDING_STATUSES.map((s) => [
        h('input', {
          type: 'radio',
          class: 'sr-only',
          name,
          id: `${name}-${s}`,
          value: s,
        }),
        h('label', { for: `${name}-${s}`, class: `choice choice-${s}` }, statusWord(s)),
      ]),
    ),
    h('label', { for: `${name}-note` }, 'Note'),
    h('textarea', { id: `${name}-note`, rows: 2, maxlength: FINDING_NOTE_MAX }),
    picker.parts,
  );
}

/** Draws the checklist of a site's practices in force (none: the checklist is hidden); retired ones are left out. */
export function renderChecklist(el: HTMLElement, list: Practice[] | undefined) {
  holder = el;
  clearPhotos();
  practices = practicesInForce(list, Date.now());
  el.hidden = practices.length === 0;
  replace(
    el,
    practices.length
      ? [
          h('legend', null, 'Practices'),
          h(
            'p',
            { class: 'small muted' },
            `Mark what you found at every practice: an inspection covers them all. Photos larger than ${PHOTO_MAX_SIDE} px are made smaller on this phone before they are sent.`,
          ),
          practices.map(practiceBox),
        ]
      : [],
  );
}

function clearPhotos() {
  for (const picker of photos.values()) picker.clear();
  photos.clear();
}

const input = (id: string) => holder?.querySelector<HTMLInputElement | HTMLTextAreaElement>(`#${id}`);

/**
 * The findings marked, or a problem in words: a practice left unmarked (each practice needs a finding),
 * or a note or a photo for one. Undefined findings: the site has no checklist.
 */
export function readFindings(): { findings?: QueuedFinding[]; problem?: string } {
  if (!practices.length) return {};
  const findings: QueuedFinding[] = [];
  const unmarked: string[] = [];
  practices.forEach((p, i) => {
    const status = FINDING_STATUSES.find((s) => (input(`f-${i}-${s}`) as HTMLInputElement | null)?.checked);
    const note = input(`f-${i}-note`)?.value.trim() ?? '';
    const shots = photos.get(p.id)?.photos() ?? [];
    if (!status) {
      if (note || shots.length) unmarked.push(p.label);
      return;
    }
    findings.push({ practice: p.id, status, note, photos: shots.map((s) => ({ blob: s.blob })) });
  });
  if (unmarked.length)
    return {
      problem: `Mark what you found at ${unmarked.join(', ')} (In order, Needs maintenance or Violation), or remove its note and photos.`,
    };
  // An inspection covers every practice of the site: only that one meets the storm and routine duties.
  const missing = practices.filter((p) => !findings.some((f) => f.practice === p.id)).map((p) => p.label);
  if (missing.length)
    return {
      problem: `Mark what you found at every practice before recording the inspection. Not marked yet: ${missing.join('; ')}.`,
    };
  return { findings };
}

/** Puts findings back into the checklist (an inspection the gateway refused, opened to fix it). */
export function fillChecklist(findings: QueuedFinding[]) {
  practices.forEach((p, i) => {
    const f = findings.find((x) => x.practice === p.id);
    for (const s of FINDING_STATUSES) {
      const radio = input(`f-${i}-${s}`) as HTMLInputElement | null;
      if (radio) radio.checked = f?.status === s;
    }
    const note = input(`f-${i}-note`);
    if (note) note.value = f?.note ?? '';
    photos.get(p.id)?.set((f?.photos ?? []).map((x) => x.blob));
  });
}

/** Empties the checklist for the next inspection. */
export function clearChecklist() {
  if (holder) renderChecklist(holder, practices);
}
