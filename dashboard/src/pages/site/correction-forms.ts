/**
 * A notice's correction and its approval on a site's page. The owner or contractor reports the correction
 * with a note and photos (taken or chosen on the spot, shown as thumbnails before they are sent, sent for
 * the site first: `ui/photo-picker.ts`, `ui/photos.ts`). The officer approves only a correction
 * reported (since the appeal's hearing, if any), choosing the re-inspection the approval rests on among
 * the site's inspections made since the correction was reported, newest first; with none, the form says
 * to record the re-inspection first and links the inspection form. A step's photos and an approval's
 * re-inspection are shown in the notice's history (`stepExtras`).
 */
import type { InspectionDto } from '../../../../shared/src/api/alerts.ts';
import { lawOfNotice } from '../../../../shared/src/api/enforcementLaws.ts';
import { correctionToApprove } from '../../../../shared/src/api/enforcementWords.ts';
import { reinspectionWords } from '../../../../shared/src/api/serviceWords.ts';
import type { ViolationDto, ViolationEvent } from '../../../../shared/src/api/violations.ts';
import { describeError, get, post } from '../../api.js';
import type { Site } from '../../state.js';
import { h, replace } from '../../ui/dom.js';
import { formatTime } from '../../ui/format.js';
import { inspectionHref, inspectionKindWords, photoThumbs } from '../../ui/inspection-record.js';
import { photoPicker } from '../../ui/photo-picker.js';
import { uploadPhotos } from '../../ui/photos.js';
import { noteForm } from './note-form.js';

export const NOT_YET_CORRECTED = 'Approval is offered once the owner or contractor reports the correction.';

/** The inspections offered as the re-inspection: the newest the API lists since the correction. */
const INSPECTIONS_OFFERED = 50;

/** "Report corrected": what was done, with photos. */
export function correctedForm(site: Site, v: ViolationDto, key: string, done: (words: string) => void) {
  const picker = photoPicker(`corrected-${key}-photo`);
  return noteForm({
    id: `corrected-${key}`,
    summary: 'Report corrected',
    label: 'What was done',
    hint: 'Add photos of the work done: the town sees them with the report.',
    submitLabel: 'Report corrected',
    emptyWords: 'Write what was done to correct it.',
    extra: picker.parts,
    send: async (note) => {
      const shots = picker.photos();
      await uploadPhotos(site.id, shots);
      await post('POST /api/violations/:id/corrected', {
        params: { id: v.id },
        body: { note, photos: shots.map((p) => p.sha256!) },
      });
      picker.clear();
      const n = shots.length;
      const words = `Reported corrected${n ? ` with ${n} photo${n === 1 ? '' : 's'}` : ''}: the town will inspect and approve it.`;
      done(words);
      return words;
    },
  });
}

/** "Approve", once a correction is reported: on the re-inspection chosen. */
export function approveForm(site: Site, v: ViolationDto, key: string, done: (words: string) => void) {
  const correction = correctionToApprove(v.events);
  if (!correction) return h('p', { class: 'small muted violation-no-approve' }, NOT_YET_CORRECTED);
  const box = h(
    'div',
    { class: 'approve-box', 'data-approve': v.id },
    h('p', { class: 'small muted', 'aria-live': 'polite' }, 'Reading the inspections since the correction…'),
  );
  void fill(box, site, v, key, correction, done);
  return box;
}

async function fill(
  box: HTMLElement,
  site: Site,
  v: ViolationDto,
  key: string,
  correction: ViolationEvent,
  done: (words: string) => void,
) {
  const tz = site.timezone;
  const reported = formatTime(correction.at, tz);
  const required = lawOfNotice(v).approvalReinspection;
  let since: InspectionDto[];
  try {
    const list = await get('GET /api/inspections', {
      query: { siteId: site.id, from: correction.at, limit: INSPECTIONS_OFFERED },
    });
    since = [...list]
      .filter((i) => Date.parse(i.at) >= Date.parse(correction.at))
      .sort((a, b) => Date.parse(b.at) - Date.parse(a.at));
  } catch (e) {
    replace(
      box,
      h('p', { class: 'msg msg-bad' }, `The inspections of this site cannot be read: ${describeError(e)}`),
    );
    return;
  }
  const record = h('a', { href: `#/inspect/${encodeURIComponent(site.id)}` }, 'Record the re-inspection');
  if (since.length === 0 && required) {
    replace(
      box,
      h(
        'p',
        { class: 'small violation-needs-reinspection' },
        `The correction was reported ${reported}. Approval rests on a re-inspection made since then, and none is recorded yet. `,
        record,
        ', then approve it here.',
      ),
    );
    return;
  }
  const select = h(
    'select',
    { id: `approve-${key}-inspection`, required },
    required ? null : h('option', { value: '' }, 'No re-inspection named'),
    since.map((i) =>
      h(
        'option',
        { value: i.id },
        `${formatTime(i.at, tz)}, ${inspectionKindWords(i.kind).toLowerCase()} by ${i.inspector}`,
      ),
    ),
  ) as HTMLSelectElement;
  replace(
    box,
    noteForm({
      id: `approve-${key}`,
      summary: 'Approve',
      label: 'Note (optional)',
      hint: 'The town confirms the remedial measures are done.',
      submitLabel: 'Approve the correction',
      optional: true,
      extra: [
        h('label', { for: select.id }, 'The re-inspection it rests on'),
        h(
          'p',
          { class: 'small muted' },
          `Inspections of this site since the correction was reported, ${reported}.`,
        ),
        select,
        since.length ? null : h('p', { class: 'small' }, record, ' first, if the town inspects it.'),
      ],
      send: async (note) => {
        await post('POST /api/violations/:id/approve', {
          params: { id: v.id },
          body: { ...(note ? { note } : {}), ...(select.value ? { inspectionId: select.value } : {}) },
        });
        const words = 'The notice is approved: the violation is corrected.';
        done(words);
        return words;
      },
    }),
  );
}

/** A step's photos as thumbnails, and an approval's re-inspection linked to its page. */
export function stepExtras(e: ViolationEvent, tz: string): HTMLElement[] {
  const out: HTMLElement[] = [];
  if (e.kind === 'approved' && e.inspectionId)
    out.push(
      h(
        'div',
        { class: 'small violation-reinspection' },
        `Approved by ${e.by} on ${formatTime(e.at, tz)}, `,
        h('a', { href: inspectionHref(e.inspectionId) }, reinspectionWords(e, tz)),
        '.',
      ),
    );
  if (e.photos.length)
    out.push(photoThumbs(e.photos, e.kind === 'corrected' ? 'the correction' : 'this step'));
  return out;
}
