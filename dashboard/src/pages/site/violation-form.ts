/**
 * On a site's page, for inspectors, "Issue a notice of violation" under the law of the site (a
 * construction site: town law 001, Enforcement; a wastewater system: town law 000, Section 5.100 B, the
 * order to correct or to cease use): what the officer orders (where the law has more than one kind), the
 * nature of the violation, the remedial measures and the date and time they are due (entered in the
 * site's zone), the penalties (the law's, prefilled) and the inspection it rests on, if any. POST
 * /api/violations; the answer tells that the appeal window starts at service.
 */
import { ENFORCEMENT_LAWS, lawIdOfSiteKind } from '../../../../shared/src/api/enforcementLaws.ts';
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

export const mayIssue = (_site: Site) => isOfficer();

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

/**
 * "within 20 days of service (the town's choice: …)": the days the gateway counts for a notice at the site
 * (the town's figure where the law names none, with its reason), else the law's.
 */
export function appealWords(site: Site, lawDays: number): string {
  const days = site.appeal?.days ?? lawDays;
  const reason = site.appeal?.reason?.replace(/[.\s]+$/, '');
  return `within ${days} days of service${reason ? ` (the town's choice: ${reason})` : ''}`;
}

/** The next whole hour a week from now, as the remedy's default due time. */
const defaultDue = (now: number) => Math.ceil((now + 7 * DAY) / 3_600_000) * 3_600_000;

export function violationForm(site: Site, now: number, done: (words: string) => void): HTMLElement | null {
  if (!mayIssue(site)) return null;
  const area = (id: string, rows: number, value = '') =>
    h('textarea', { id, rows, maxlength: 4000, required: true }, value) as HTMLTextAreaElement;
  const nature = area('v-nature', 3);
  const remedy = area('v-remedy', 3);
  const law = ENFORCEMENT_LAWS[lawIdOfSiteKind(site.kind)];
  const penalties = area('v-penalties', 4, law.penalties);
  const orderKind = h(
    'select',
    { id: 'v-order-kind' },
    law.orderKinds.map((k) => h('option', { value: k.id }, k.label)),
  ) as HTMLSelectElement;
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
          orderKind: orderKind.value,
        },
      });
      const words = `Notice issued, remedy due ${formatTime(at, site.timezone)}. It is sent by e-mail to the parties on file; the ${issued.appealDays ?? site.appeal?.days ?? law.appealDays} days to appeal start when it is served${issued.appealBy ? `, until ${shortDate(issued.appealBy, site.timezone)}` : ''}.`;
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
    h(
      'summary',
      null,
      law.orderKinds.length > 1
        ? `Issue an order (${law.noticeTitle.toLowerCase()})`
        : 'Issue a notice of violation',
    ),
    h(
      'form',
      { id: 'violation-form', class: 'form', novalidate: true, onsubmit: (e: Event) => void submit(e) },
      h(
        'p',
        { class: 'small muted' },
        `Under the ${law.title}. The notice is e-mailed to the site's parties on file with the document attached; record a service by mail or in person on the notice. It may be appealed to ${law.appealTo} ${appealWords(site, law.appealDays)}. Times are in `,
        site.timezone,
        '.',
      ),
      law.orderKinds.length > 1 ? h('label', { for: 'v-order-kind' }, 'The order') : null,
      law.orderKinds.length > 1 ? orderKind : null,
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
