/**
 * An inspection's signature on its page: the statement, the drawing (an SVG built with DOM methods, its
 * one path's data the drawing's points, which the gateway accepts in no other form) or the typed name in
 * a script hand, and "Signed by NAME, at TIME (zone)". Built without markup, so nothing in it is read as
 * HTML, and without inline styles (the page's Content-Security-Policy allows none).
 */
import type { Signature } from '../../../shared/src/api/findings.ts';
import {
  drawingProblem,
  SIGNATURE_BOX,
  SIGNATURE_STATEMENT,
} from '../../../shared/src/api/signatureWords.ts';
import { h } from './dom.js';

const SVG = 'http://www.w3.org/2000/svg';

/** The drawing as an inline SVG (none for a drawing not of the pad's form). */
function drawing(s: Signature): SVGSVGElement | undefined {
  if (s.method !== 'drawn' || !s.drawing || drawingProblem(s.drawing)) return undefined;
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('class', 'signature-drawing');
  svg.setAttribute('viewBox', `0 0 ${SIGNATURE_BOX.width} ${SIGNATURE_BOX.height}`);
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', `Signature of ${s.name}`);
  const path = document.createElementNS(SVG, 'path');
  path.setAttribute('d', s.drawing);
  svg.append(path);
  return svg;
}

/** The signature block; `signedAt` is the time in words, with its zone named. */
export function signatureView(s: Signature, signedAt: string): HTMLElement {
  const mark = drawing(s) ?? h('p', { class: 'signature-typed' }, s.name);
  return h(
    'section',
    { class: 'signature-view', id: 'inspection-signature' },
    h('h3', null, 'Signature'),
    h('p', { class: 'signature-statement small' }, SIGNATURE_STATEMENT),
    mark,
    h(
      'p',
      { class: 'signed-by' },
      `Signed by ${s.name}, at ${signedAt}`,
      s.method === 'typed' ? ' (the typed name adopted as the signature)' : '',
    ),
  );
}
