/**
 * Whose inspection the form records (the developer's side or the town's), and what a recorded one
 * meets, in words: a town inspection closes none of the developer's duties, and one covering fewer than
 * every practice is partial.
 */
import type { InspectionDto } from '../../../../shared/src/api/alerts.ts';
import { coverageWords } from '../../../../shared/src/api/inspectionWords.ts';
import { session } from '../../session.js';
import { byId } from '../../ui/dom.js';

/**
 * Whose inspection the form records. An owner's or contractor's account records the developer's side
 * only (the menu is fixed); the town's accounts choose, the town's by default. The line under it says
 * what the choice means for the developer's duties.
 */
export function drawSide() {
  const sel = byId('i-side') as HTMLSelectElement;
  const scoped = Array.isArray(session.me?.sites);
  if (scoped) sel.value = 'developer';
  else if (!sel.dataset.chosen) sel.value = 'town';
  sel.disabled = scoped;
  byId('i-side-note').textContent =
    sel.value === 'town'
      ? "Recorded as the town's own inspection: it does not meet the developer's storm or routine inspection duty."
      : scoped
        ? "Your account records the developer's inspections. With a finding at every practice it meets the storm and routine inspection duties."
        : 'Entered for the developer (their report, or an inspector acting for them). With a finding at every practice it meets the storm and routine inspection duties.';
}

/** What a recorded inspection meets, in words: partial, or the town's (empty when neither). */
export function sideWords(i: Pick<InspectionDto, 'coverage' | 'side'>): string {
  const cov = i.coverage;
  const partial = cov && cov.covered < cov.of ? ` It covered ${coverageWords(cov)}: partial.` : '';
  const town = i.side === 'town' ? " A town inspection: it closes none of the developer's duties." : '';
  return `${partial}${town}`;
}
