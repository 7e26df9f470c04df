/**
 * Stop-work orders (town law 001, Enforcement; town law 000, 5.030 A 7): the banner wherever a site is shown ("Stop-work order
 * since Nov 30: <reason>"), and on a construction site's page, for inspectors, "Stop work" (a reason, the
 * notice it rests on if any) and "Lift the stop-work order" (a note; when the town refuses because a
 * notice it names is not approved, "Lift anyway (recorded as an override)"). The order in effect shows
 * "Print the order" (its document) and each of its services: how, on whom, when.
 */
import { stepDetailWords } from '../../../../shared/src/api/serviceWords.ts';
import type { ViolationDto } from '../../../../shared/src/api/violations.ts';
import { ApiError, describeError, post } from '../../api.js';
import type { Site } from '../../state.js';
import { h } from '../../ui/dom.js';
import { formatTime, shortDate } from '../../ui/format.js';
import { stopWorkBanner, workHaltedBanner } from '../../ui/stop-work-banner.js';
import { noteForm, tell } from './note-form.js';
import { partyNames, serviceForm } from './violation-service.js';
import { isOfficer } from './violations.js';

/** Whether the person signed in may order work stopped, or lift the order. */
export const mayOrderStop = isOfficer;

/** A notice as a choice: its day and what it is about. */
const noticeChoice = (v: ViolationDto, tz: string) => {
  const what = v.nature.length > 70 ? `${v.nature.slice(0, 67)}…` : v.nature;
  return `Notice of ${shortDate(v.issuedAt, tz)}: ${what}`;
};

function orderForm(site: Site, notices: readonly ViolationDto[], done: (words: string) => void) {
  const open = notices.filter((v) => v.status !== 'approved');
  const select = h(
    'select',
    { id: 'sw-notice' },
    h('option', { value: '' }, 'None'),
    open.map((v) => h('option', { value: v.id }, noticeChoice(v, site.timezone))),
  ) as HTMLSelectElement;
  return noteForm({
    id: 'stop-work-form',
    summary: 'Stop work',
    label: 'Reason',
    hint: 'Work at the site stops until the town confirms it complies again.',
    submitLabel: 'Order work stopped',
    emptyWords: 'Write the reason for the order.',
    extra: [h('label', { for: 'sw-notice' }, 'The notice of violation it rests on (optional)'), select],
    send: async (reason) => {
      const order = await post('POST /api/sites/:id/stop-work', {
        params: { id: site.id },
        body: { reason, ...(select.value ? { violationId: select.value } : {}) },
      });
      const words = `Work is ordered stopped since ${formatTime(order.since, site.timezone)}.`;
      done(words);
      return words;
    },
  });
}

function liftForm(site: Site, done: (words: string) => void) {
  const lift = async (note: string, override: boolean) => {
    await post('POST /api/sites/:id/stop-work/lift', {
      params: { id: site.id },
      body: { note, ...(override ? { override: true } : {}) },
    });
    const words = override
      ? 'The order is lifted, recorded as an override.'
      : 'The order is lifted: work may resume.';
    done(words);
    return words;
  };
  return noteForm({
    id: 'stop-work-lift',
    summary: 'Lift the stop-work order',
    label: 'Note',
    hint: 'What the town confirmed at the site.',
    submitLabel: 'Lift the order',
    emptyWords: 'Write a note: what the town confirmed.',
    send: (note) => lift(note, false),
    // A notice the order names is not approved yet: the officer may still lift it, on the record.
    refused: (err, note, result) => {
      if (!(err instanceof ApiError) || err.code !== 'NOTICES_OPEN') return false;
      const anyway = h(
        'button',
        {
          type: 'button',
          class: 'secondary',
          id: 'stop-work-override',
          onclick: () => {
            (anyway as HTMLButtonElement).disabled = true;
            lift(note, true).then(
              (words) => tell(result, words, 'ok'),
              (e2: unknown) => tell(result, describeError(e2), 'bad'),
            );
          },
        },
        'Lift anyway (recorded as an override)',
      );
      result.replaceChildren(h('span', null, describeError(err)), ' ', anyway);
      result.className = 'msg msg-warn';
      return true;
    },
  });
}

/**
 * The site page's part: the banner, and for inspectors the form to order work stopped or to lift the
 * order in effect.
 */
export function stopWorkPanel(
  site: Site,
  notices: readonly ViolationDto[],
  done: (words: string) => void,
): HTMLElement | null {
  const banner = stopWorkBanner(site.stopWork, site.timezone);
  const inEffect = Boolean(banner);
  const form = mayOrderStop() ? (inEffect ? liftForm(site, done) : orderForm(site, notices, done)) : null;
  const halted = workHaltedBanner(site.workHalted, site.timezone);
  if (!banner && !form && !halted) return null;
  // The order in effect is served as a notice is: by e-mail on the parties on file when issued, or by
  // mail or in person, recorded by the officer. Each service: how, on whom, when.
  const order = site.stopWork;
  const services = order?.services ?? [];
  const served =
    order && !order.liftedAt
      ? h(
          'div',
          { class: 'small muted stop-work-served' },
          h(
            'p',
            null,
            order.servedAt
              ? `First served ${formatTime(order.servedAt, site.timezone)}.`
              : 'Not yet served: the order is e-mailed to the parties on file; record a service by mail or in person below.',
          ),
          services.length
            ? h(
                'ul',
                { class: 'stop-work-services', 'aria-label': 'Services of the stop-work order' },
                services.map((x) =>
                  h('li', null, `${stepDetailWords({ kind: 'served', ...x }, order.law, site.timezone)}.`),
                ),
              )
            : null,
        )
      : null;
  const service =
    order && !order.liftedAt && mayOrderStop()
      ? serviceForm(
          `stop-${order.id.replace(/[^A-Za-z0-9_-]/g, '-')}`,
          site,
          partyNames(site),
          async (body) => {
            await post('POST /api/stop-work/:id/service', { params: { id: order.id }, body });
            const words = `The service of the stop-work order ${body.method === 'mail' ? 'by mail' : 'in person'} on ${body.party} is recorded.`;
            done(words);
            return words;
          },
        )
      : null;
  return h('div', { class: 'stop-work' }, halted, banner, served, form, service);
}
