/**
 * On a construction site's page, for inspectors, "Issue a notice of violation" (town law 001,
 * Enforcement): the nature of the violation, the remedial measures and the date and time they are due
 * (entered in the site's zone), the penalties (the law's, prefilled) and the inspection it rests on, if
 * any. POST /api/violations; the answer tells until when it may be appealed.
 */
import { APPEAL_DAYS, DEFAULT_PENALTIES } from '../../../../shared/src/api/enforcementWords.ts';
import { describeError, get, post } from '../../api.js';
import type { Site } from '../../state.js';
import { h } from '../../ui/dom.js';
import { formatTime, shortDate, utcToZonedInput, zonedToUtc } from '../../ui/format.js';
import { tell } from './note-form.js';
import { isOfficer } from './violations.js';

const DAY = 86_400_000;

const INSPECTION_KINDS: Record<string, string> = {
  storm: 'storm inspection',
  routine: 'routine inspection',
  annual: 'annual inspection',
  cleanout: 'cleanout',
  other: 'inspection',
};

export const mayIssue = (site: Site) => site.kind === 'construction' && isOfficer();

/** The inspections the form offers: the site's newest (the API lists them newest first). */
const INSPECTIONS_OFFERED = 30;

async function inspectionsOf(site: Site, select: HTMLSelectElement) {
  try {
    const list = await get('GET /api/inspections', {
      query: { siteId: site.id, limit: INSPECTIONS_OFFERED },
    });
    const newest = [...list].sort((a, b) => Date.parse(b.at) - Date.parse(a.at));
    select.append(
      ...newest.map((i) =>
        h(
          'option',
          { value: i.id },
          `${formatTime(i.at, site.timezone)}, ${INSPECTION_KINDS[i.kind] ?? 'inspection'} by ${i.inspector}`,
        ),
      ),
    );
  } catch (e) {
    console.warn(`the inspections of ${site.id} could not be read`, e);
  }
}

/** The next whole hour a week from now, as the remedy's default due time. */
const defaultDue = (now: number) => Math.ceil((now + 7 * DAY) / 3_600_000) * 3_600_000;

export function violationForm(site: Site, now: number, done: (words: string) => void): HTMLElement | null {
  if (!mayIssue(site)) return null;
  const area = (id: string, rows: number, value = '') =>
    h('textarea', { id, rows, maxlength: 4000, required: true }, value) as HTMLTextAreaElement;
  const nature = area('v-nature', 3);
  const remedy = area('v-remedy', 3);
  const penalties = area('v-penalties', 4, DEFAULT_PENALTIES);
  const due = h('input', {
    id: 'v-due',
    type: 'datetime-local',
    required: true,
    value: utcToZonedInput(defaultDue(now), site.timezone),
  }) as HTMLInputElement;
  const inspection = h(
    'select',
    { id: 'v-inspection' },
    h('option', { value: '' }, 'None'),
  ) as HTMLSelectElement;
  void inspectionsOf(site, inspection);
  const result = h('p', { id: 'v-result', class: 'msg', role: 'status', 'aria-live': 'polite' });
  const button = h('button', { type: 'submit' }, 'Issue the notice') as HTMLButtonElement;

  const submit = async (e: Event) => {
    e.preventDefault();
    const at = zonedToUtc(due.value, site.timezone);
    const missing = !nature.value.trim()
      ? [nature, 'Describe the nature of the violation.']
      : !remedy.value.trim()
        ? [remedy, 'Write the remedial measures needed.']
        : !Number.isFinite(at)
          ? [due, 'Choose the date and time the remedy is due.']
          : at <= Date.now()
            ? [due, 'The remedy must be due later than now.']
            : undefined;
    if (missing) {
      tell(result, missing[1] as string, 'bad');
      (missing[0] as HTMLElement).focus();
      return;
    }
    button.disabled = true;
    try {
      const issued = await post('POST /api/violations', {
        body: {
          siteId: site.id,
          nature: nature.value.trim(),
          remedy: remedy.value.trim(),
          remedyDueAt: new Date(at).toISOString(),
          ...(penalties.value.trim() ? { penalties: penalties.value.trim() } : {}),
          ...(inspection.value ? { inspectionId: inspection.value } : {}),
        },
      });
      const words = `Notice issued, remedy due ${formatTime(at, site.timezone)}. It may be appealed until ${shortDate(issued.appealBy, site.timezone)}.`;
      tell(result, words, 'ok');
      done(words);
    } catch (err) {
      tell(result, describeError(err), 'bad');
    } finally {
      button.disabled = false;
    }
  };

  return h(
    'details',
    { class: 'card violation-form' },
    h('summary', null, 'Issue a notice of violation'),
    h(
      'form',
      { id: 'violation-form', class: 'form', novalidate: true, onsubmit: (e: Event) => void submit(e) },
      h(
        'p',
        { class: 'small muted' },
        `The notice is served now on the site's landowner and developer; it may be appealed within ${APPEAL_DAYS} days. Times are in `,
        site.timezone,
        '.',
      ),
      h('label', { for: 'v-nature' }, 'Nature of the violation'),
      nature,
      h('label', { for: 'v-remedy' }, 'Remedial measures'),
      remedy,
      h('label', { for: 'v-due' }, 'Remedy due (date and time)'),
      due,
      h('label', { for: 'v-penalties' }, 'Penalties'),
      penalties,
      h(
        'label',
        { for: 'v-inspection' },
        `The inspection it rests on (optional; the newest ${INSPECTIONS_OFFERED})`,
      ),
      inspection,
      button,
      result,
    ),
  );
}
