/**
 * The stop-work order in effect as a banner, wherever a site is shown (the overview's card, another
 * gateway's site on the overview, the site's page): "Stop-work order since Nov 30: <reason> · Print the
 * order" (the link where the order is this gateway's). Small, in
 * the page's first bundle; the forms to order and lift one are in `stop-work.ts`, loaded with a
 * construction site's page.
 */
import { stopWorkDocumentUrl, WORK_HALTED_WORDS } from '../../../shared/src/api/enforcementWords.ts';
import { h } from './dom.js';
import { shortDate } from './format.js';

/**
 * The order in effect, as a banner; nothing when there is none. An order of this gateway (its `id`
 * known) has its printable document beside it: "Print the order".
 */
export function stopWorkBanner(
  order:
    | { id?: string | undefined; since: string; reason: string; liftedAt?: string | undefined }
    | null
    | undefined,
  tz: string,
): HTMLElement | null {
  if (!order || order.liftedAt) return null;
  return h(
    'p',
    { class: 'stop-work-banner', role: 'note', 'data-stop-work': 'in-effect' },
    h('strong', null, `Stop-work order since ${shortDate(order.since, tz)}`),
    `: ${order.reason}`,
    order.id
      ? [
          ' · ',
          h(
            'a',
            {
              href: stopWorkDocumentUrl(order.id),
              target: '_blank',
              rel: 'noopener',
              'data-stop-work-document': order.id,
            },
            'Print the order',
          ),
        ]
      : null,
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
