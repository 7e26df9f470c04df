/**
 * An inspection in words, for the site's list of inspections and the inspection's own page: its kind,
 * whose it is, what it covered, and its photos as thumbnails that open full size (GET /api/photos/{sha256},
 * read with the page's token or session).
 */

import type { InspectionDto } from '../../../shared/src/api/alerts.ts';
import {
  coverageWords,
  INSPECTION_KIND_LABELS,
  INSPECTION_SIDE_LABELS,
} from '../../../shared/src/api/inspectionWords.ts';
import { describeError, errorOf, getToken } from '../api.js';
import { h } from './dom.js';

export const inspectionKindWords = (kind: string): string =>
  (INSPECTION_KIND_LABELS as Record<string, string>)[kind] ?? 'Inspection';

export const inspectionSideWords = (i: Pick<InspectionDto, 'side'>): string => INSPECTION_SIDE_LABELS[i.side];

/** "Every practice (5 of 5)", "3 of 5 practices, not every practice", or "" at a site without practices. */
export function coverageSentence(i: Pick<InspectionDto, 'coverage'>): string {
  const c = i.coverage;
  if (!c) return '';
  return c.covered >= c.of
    ? `Every practice (${coverageWords(c)})`
    : `${coverageWords(c)}: not every practice`;
}

/** The inspection's page. */
export const inspectionHref = (id: string) => `#/inspections/${encodeURIComponent(id)}`;

/** GET bytes (a photo) with the saved token or the session: an object URL for them, to revoke when gone. */
async function getBlobUrl(path: string): Promise<string> {
  const token = getToken();
  const res = await fetch(path, {
    headers: token ? { authorization: `Bearer ${token}` } : {},
    credentials: 'same-origin',
  });
  if (!res.ok) throw await errorOf(res);
  return URL.createObjectURL(await res.blob());
}

/** Where a photo is served. */
const photoPath = (sha256: string) => `/api/photos/${encodeURIComponent(sha256)}`;

/** The full-size photo over the page; closed by its button, Escape or a click outside. */
function showFull(src: string, alt: string) {
  const close = h('button', { type: 'button', class: 'secondary', 'aria-label': 'Close' }, '✕');
  const d = h(
    'dialog',
    { class: 'photo-full', 'aria-label': alt },
    h('div', { class: 'dialog-head' }, h('h2', null, alt), close),
    h('img', { src, alt }),
  ) as HTMLDialogElement;
  close.addEventListener('click', () => d.close());
  d.addEventListener('click', (e) => {
    if (e.target === d) d.close();
  });
  d.addEventListener('close', () => d.remove());
  document.body.append(d);
  d.showModal();
}

/** The photos as thumbnails; each opens full size. `what` names them: "Photo 1 of Silt fence". */
export function photoThumbs(hashes: readonly string[], what: string): HTMLElement {
  const box = h('ul', { class: 'photo-thumbs' });
  hashes.forEach((sha, n) => {
    const alt = `Photo ${n + 1} of ${what}`;
    const btn = h('button', { type: 'button', class: 'photo-thumb', 'aria-label': `${alt}: open full size` });
    const item = h('li', null, btn);
    box.append(item);
    getBlobUrl(photoPath(sha)).then(
      (src) => {
        btn.append(h('img', { src, alt, loading: 'lazy' }));
        btn.addEventListener('click', () => showFull(src, alt));
      },
      (e: unknown) => {
        btn.replaceWith(
          h('span', { class: 'small text-bad' }, `${alt} could not be shown: ${describeError(e)}`),
        );
      },
    );
  });
  return box;
}
