/**
 * On a construction site's page, "Notify the town of a milestone": the law's eight milestones (town law
 * 001, A(1): at least 48 hours before), a date and time in the site's zone, POST /api/notices. Shown to
 * those who may file: the site's owner or contractor, inspectors, engineers and admins.
 */
import {
  MILESTONE_IDS,
  MILESTONES,
  type Milestone,
  NOTICE_LEAD_MS,
} from '../../../../shared/src/api/milestones.ts';
import { describeError, post } from '../../api.js';
import { atLeast, isScoped, session } from '../../session.js';
import type { Site } from '../../state.js';
import { h } from '../../ui/dom.js';
import { formatTime, utcToZonedInput, zonedToUtc } from '../../ui/format.js';

/** Whether the person signed in may notify a milestone at this site. */
export function mayNotify(site: Site): boolean {
  const me = session.me;
  if (!me || site.kind !== 'construction') return false;
  return atLeast(me, 'inspector') || (isScoped(me) && (me.sites ?? []).includes(site.id));
}

/** The form, or nothing for a site or a person it is not for. */
export function milestoneForm(site: Site, now: number): HTMLElement | null {
  if (!mayNotify(site)) return null;
  const select = h(
    'select',
    { id: 'm-milestone', required: true },
    MILESTONE_IDS.map((id) => h('option', { value: id }, MILESTONES[id])),
  ) as HTMLSelectElement;
  const when = h('input', {
    id: 'm-at',
    type: 'datetime-local',
    required: true,
    value: utcToZonedInput(now + NOTICE_LEAD_MS + 3_600_000, site.timezone),
  }) as HTMLInputElement;
  const result = h('p', { id: 'm-result', class: 'msg', role: 'status', 'aria-live': 'polite' });
  const button = h('button', { type: 'submit' }, 'Notify the town') as HTMLButtonElement;
  const submit = async (e: Event) => {
    e.preventDefault();
    const at = zonedToUtc(when.value, site.timezone);
    if (!Number.isFinite(at)) {
      result.textContent = 'Choose the date and time of the milestone.';
      result.className = 'msg text-bad';
      return;
    }
    button.disabled = true;
    try {
      const filed = await post('POST /api/notices', {
        body: {
          siteId: site.id,
          milestone: select.value as Milestone,
          at: new Date(at).toISOString(),
        },
      });
      const what = `${MILESTONES[select.value as keyof typeof MILESTONES]} at ${formatTime(at, site.timezone)}`;
      result.textContent = filed.late
        ? `Notice filed: ${what}. It is late: the town asks for 48 hours' notice.`
        : `Notice filed: ${what}. On time.`;
      result.className = filed.late ? 'msg msg-warn' : 'msg text-ok';
    } catch (err) {
      result.textContent = describeError(err);
      result.className = 'msg text-bad';
    } finally {
      button.disabled = false;
    }
  };
  return h(
    'details',
    { class: 'card milestone-form' },
    h('summary', null, 'Notify the town of a milestone'),
    h(
      'form',
      { id: 'milestone-form', class: 'form', novalidate: true, onsubmit: (e: Event) => void submit(e) },
      h(
        'p',
        { class: 'small muted' },
        'The town must be told at least 48 hours before each of these, to inspect. Times are in ',
        site.timezone,
        '.',
      ),
      h('label', { for: 'm-milestone' }, 'Milestone'),
      select,
      h('label', { for: 'm-at' }, 'Date and time'),
      when,
      button,
      result,
    ),
  );
}
