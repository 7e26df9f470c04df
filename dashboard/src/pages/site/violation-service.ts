/**
 * For the officer, on a notice of violation or a stop-work order: "Record service" (by mail or in person:
 * on whom and when, entered in the site's zone; the first service starts the appeal window), and on a
 * notice appealed under a law whose appeals a board hears (town law 000: the Local Board of Health,
 * Section 5.010), "Record the hearing" (its date and outcome). What the gateway answers, or why it
 * refused, in words under the button.
 */
import { lawOf } from '../../../../shared/src/api/enforcementLaws.ts';
import { HEARING_OUTCOME_LABELS, HEARING_OUTCOMES } from '../../../../shared/src/api/enforcementWords.ts';
import type { ViolationDto } from '../../../../shared/src/api/violations.ts';
import { describeError, post } from '../../api.js';
import type { Site } from '../../state.js';
import { h } from '../../ui/dom.js';
import { utcToZonedInput, zonedToUtc } from '../../ui/format.js';
import { tell } from './note-form.js';

/** What a service form sends: how, on whom, when (ISO), and a note. */
export interface ServiceEntry {
  method: 'mail' | 'in-person';
  party: string;
  servedAt: string;
  note?: string;
}

/** The folded "Record service" form; `send` records it and answers in words. */
export function serviceForm(
  key: string,
  site: Site,
  parties: readonly string[],
  send: (s: ServiceEntry) => Promise<string>,
): HTMLElement {
  const id = `service-${key}`;
  const method = h(
    'select',
    { id: `${id}-method` },
    h('option', { value: 'mail' }, 'By mail'),
    h('option', { value: 'in-person' }, 'In person'),
  ) as HTMLSelectElement;
  const party = h('input', {
    id: `${id}-party`,
    type: 'text',
    maxlength: 200,
    required: true,
    value: parties[0] ?? '',
    list: `${id}-parties`,
  }) as HTMLInputElement;
  const list = h(
    'datalist',
    { id: `${id}-parties` },
    parties.map((p) => h('option', { value: p })),
  );
  const when = h('input', {
    id: `${id}-at`,
    type: 'datetime-local',
    required: true,
    value: utcToZonedInput(Math.floor(Date.now() / 60_000) * 60_000, site.timezone),
  }) as HTMLInputElement;
  const note = h('input', { id: `${id}-note`, type: 'text', maxlength: 4000 }) as HTMLInputElement;
  const result = h('p', { id: `${id}-result`, class: 'msg', role: 'status', 'aria-live': 'polite' });
  const button = h('button', { type: 'submit' }, 'Record the service') as HTMLButtonElement;
  const submit = async (e: Event) => {
    e.preventDefault();
    const at = zonedToUtc(when.value, site.timezone);
    if (!party.value.trim()) {
      tell(result, 'Write on whom it was served.', 'bad');
      party.focus();
      return;
    }
    if (!Number.isFinite(at)) {
      tell(result, 'Choose the date and time it was served.', 'bad');
      when.focus();
      return;
    }
    button.disabled = true;
    try {
      const words = await send({
        method: method.value === 'in-person' ? 'in-person' : 'mail',
        party: party.value.trim(),
        servedAt: new Date(at).toISOString(),
        ...(note.value.trim() ? { note: note.value.trim() } : {}),
      });
      tell(result, words, 'ok');
    } catch (err) {
      tell(result, describeError(err), 'bad');
    } finally {
      button.disabled = false;
    }
  };
  return h(
    'details',
    { class: 'step-form service-form', id },
    h('summary', null, 'Record service'),
    h(
      'form',
      { class: 'form', novalidate: true, onsubmit: (e: Event) => void submit(e) },
      h(
        'p',
        { class: 'small muted' },
        'A service by mail or in person (an e-mail delivery is recorded by itself). The first service starts the appeal window. Times are in ',
        site.timezone,
        '.',
      ),
      h('label', { for: `${id}-method` }, 'How'),
      method,
      h('label', { for: `${id}-party` }, 'On whom'),
      party,
      list,
      h('label', { for: `${id}-at` }, 'When it was served'),
      when,
      h('label', { for: `${id}-note` }, 'Note (optional)'),
      note,
      button,
      result,
    ),
  );
}

/** The names a notice is directed to, as the service form offers them. */
export const partyNames = (v: Pick<ViolationDto, 'landowner' | 'developer'>): string[] =>
  [v.landowner?.name, v.developer?.name].filter((n): n is string => n !== undefined);

/** The folded "Record the hearing" form of an appealed notice, where its law has appeals heard. */
export function hearingForm(v: ViolationDto, key: string, done: (words: string) => void): HTMLElement | null {
  const law = lawOf(v.law);
  if (!law.appealHearing) return null;
  if (!v.events.some((e) => e.kind === 'appealed') || v.events.some((e) => e.kind === 'heard')) return null;
  const id = `hearing-${key}`;
  const on = h('input', { id: `${id}-on`, type: 'date', required: true }) as HTMLInputElement;
  const outcome = h(
    'select',
    { id: `${id}-outcome` },
    HEARING_OUTCOMES.map((o) => h('option', { value: o }, HEARING_OUTCOME_LABELS[o])),
  ) as HTMLSelectElement;
  const note = h('textarea', {
    id: `${id}-text`,
    rows: 3,
    maxlength: 4000,
    required: true,
  }) as HTMLTextAreaElement;
  const result = h('p', { id: `${id}-result`, class: 'msg', role: 'status', 'aria-live': 'polite' });
  const button = h('button', { type: 'submit' }, 'Record the hearing') as HTMLButtonElement;
  const submit = async (e: Event) => {
    e.preventDefault();
    if (!on.value || !note.value.trim()) {
      tell(result, 'Give the date of the hearing and what was decided.', 'bad');
      return;
    }
    button.disabled = true;
    try {
      await post('POST /api/violations/:id/hearing', {
        params: { id: v.id },
        body: {
          heldOn: on.value,
          outcome: outcome.value as (typeof HEARING_OUTCOMES)[number],
          note: note.value.trim(),
        },
      });
      const words = `The hearing by ${law.appealTo} is recorded.`;
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
    { class: 'step-form hearing-form', id },
    h('summary', null, 'Record the hearing'),
    h(
      'form',
      { class: 'form', novalidate: true, onsubmit: (e: Event) => void submit(e) },
      h('p', { class: 'small muted' }, `The appeal is heard by ${law.appealTo}: its date and its decision.`),
      h('label', { for: `${id}-on` }, 'Date of the hearing'),
      on,
      h('label', { for: `${id}-outcome` }, 'Decision'),
      outcome,
      h('label', { for: `${id}-text` }, 'What was decided'),
      note,
      button,
      result,
    ),
  );
}
