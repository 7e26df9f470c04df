/**
 * The stop-work order in effect as a banner, wherever a site is shown (the overview's card, another
 * gateway's site on the overview, the site's page): "Stop-work order since Nov 30: <reason>". Small, in
 * the page's first bundle; the forms to order and lift one are in `stop-work.ts`, loaded with a
 * construction site's page.
 */
import { WORK_HALTED_WORDS } from '../../../shared/src/api/enforcementWords.ts';
import { h } from './dom.js';
import { shortDate } from './format.js';

/** The order in effect, as a banner; nothing when there is none. */
export function stopWorkBanner(
  order: { since: string; reason: string; liftedAt?: string | undefined } | null | undefined,
  tz: string,
): HTMLElement | null {
  if (!order || order.liftedAt) return null;
  return h(
    'p',
    { class: 'stop-work-banner', role: 'note', 'data-stop-work': 'in-effect' },
    h('strong', null, `Stop-work order since ${shortDate(order.since, tz)}`),
    `: ${order.reason}`,
  );
}

/**
 * Work halted by a violation finding not yet corrected and approved, as a banner beside the stop-work
 * order's: "Work halted except site stabilization since Nov 30: violation at Silt fence, north boundary".
 */
export function workHaltedBanner(
  halted: { since: string; practices: readonly string[] } | null | undefined,
  tz: string,
): HTMLElement | null {
  if (!halted) return null;
  return h(
    'p',
    { class: 'stop-work-banner', role: 'note', 'data-work-halted': 'in-effect' },
    h('strong', null, `${WORK_HALTED_WORDS} since ${shortDate(halted.since, tz)}`),
    `: a violation found at ${halted.practices.join('; ')} is not yet corrected and approved.`,
  );
}
