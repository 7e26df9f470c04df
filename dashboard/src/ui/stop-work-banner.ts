/**
 * The stop-work order in effect as a banner, wherever a site is shown (the overview's card, another
 * gateway's site on the overview, the site's page): "Stop-work order since Nov 30: <reason>". Small, in
 * the page's first bundle; the forms to order and lift one are in `stop-work.ts`, loaded with a
 * construction site's page.
 */
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
