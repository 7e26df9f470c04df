/**
 * An inspection's signature on the report's page and in its CSV: the statement the inspector signed,
 * the drawing (an SVG the report builds around the drawing's path data, which its schema allows to be
 * points only) or the typed name in a script hand, and "Signed by NAME, at TIME". Inspections recorded
 * without a signature show none.
 */
import type { InspectionDto } from '../../../../shared/src/api/alerts.ts';
import {
  drawingProblem,
  SIGNATURE_BOX,
  SIGNATURE_STATEMENT,
} from '../../../../shared/src/api/signatureWords.ts';
import { escapeXml as esc } from '../stormChart.ts';
import type { Time } from './section.ts';

type Signed = Pick<InspectionDto, 'at' | 'signature'>;

/** The signature's mark: the drawing as an inline SVG, or the typed name in a script hand. */
function mark(s: NonNullable<Signed['signature']>): string {
  // Checked again here: only a drawing of the pad's form (points, nothing else) is put in the page.
  if (s.method === 'drawn' && s.drawing && !drawingProblem(s.drawing))
    return `<svg class="signature-drawing" viewBox="0 0 ${SIGNATURE_BOX.width} ${SIGNATURE_BOX.height}" role="img" aria-label="Signature of ${esc(s.name)}"><path d="${esc(s.drawing)}"/></svg>`;
  return `<span class="signature-typed">${esc(s.name)}</span>`;
}

/** The signature block under an inspection's details on the page ('' when it was not signed). */
export function signatureBlock(x: Signed, t: Time): string {
  const s = x.signature;
  if (!s) return '';
  return `<div class="inspection-signature"><small>${esc(SIGNATURE_STATEMENT)}</small>${mark(s)}<small>Signed by ${esc(s.name)}, at ${t(x.at)}${s.method === 'typed' ? ' (the typed name adopted as the signature)' : ''}</small></div>`;
}

/** The CSV's "signed by" cell: the name, and how it was signed ('' when it was not signed). */
export function signedByCell(x: Signed): string {
  const s = x.signature;
  return s ? `${s.name} (${s.method === 'drawn' ? 'drawn' : 'typed name'})` : '';
}
