/**
 * One inspection's page (`#/inspections/<id>`, GET /api/inspections/{id}), loaded with its first visit:
 * when it was done and when the gateway received it, who recorded it, whose it is (the developer's or the
 * town's), whether it covered every practice of the site, its findings at each practice (the practice's
 * label, the finding in words, the note, the photos as thumbnails that open full size), a wastewater
 * inspection's deficiencies and hauler, its entry number in the evidence log, and the inspector's
 * signature (the statement, the drawing or the typed name, who signed and when).
 */

import type { InspectionDto } from '../../../../shared/src/api/alerts.ts';
import { FINDING_STATUS_LABELS } from '../../../../shared/src/api/inspectionWords.ts';
import { DEFICIENCY_KIND_LABELS } from '../../../../shared/src/api/wastewaterWords.ts';
import { type Answer, describeError, get } from '../../api.js';
import { byId, cell, h, replace } from '../../ui/dom.js';
import { formatTime } from '../../ui/format.js';
import {
  coverageSentence,
  inspectionKindWords,
  inspectionSideWords,
  photoThumbs,
} from '../../ui/inspection-record.js';
import { signatureView } from '../../ui/signature-view.js';

type SiteView = Answer<'GET /api/sites/:id'>;

let seq = 0;

export async function loadInspection(id: string) {
  const mine = ++seq;
  const body = byId('inspection-body');
  const title = byId('inspection-title');
  const back = byId('inspection-back') as HTMLAnchorElement;
  title.textContent = 'Inspection';
  replace(body, h('p', { class: 'small', 'aria-live': 'polite' }, 'Reading the inspection…'));
  try {
    const i = await get('GET /api/inspections/:id', { params: { id } });
    const site = await get('GET /api/sites/:id', { params: { id: i.siteId } });
    if (mine !== seq) return;
    back.href = `#/sites/${encodeURIComponent(site.id)}`;
    back.textContent = `← ${site.name}`;
    title.textContent = `${inspectionKindWords(i.kind)} at ${site.name}`;
    document.title = `${title.textContent} · Compliance gateway`;
    replace(body, ...render(i, site));
  } catch (e) {
    if (mine !== seq) return;
    back.href = '#/overview';
    back.textContent = '← All sites';
    replace(
      body,
      h('p', { class: 'text-bad', role: 'alert' }, `This inspection cannot be shown: ${describeError(e)}`),
    );
  }
}

function render(i: InspectionDto, site: SiteView): HTMLElement[] {
  const tz = site.timezone;
  const fact = (label: string, ...value: (string | Node)[]) => [
    h('dt', null, label),
    h('dd', null, ...value),
  ];
  const covered = coverageSentence(i);
  const facts = h(
    'dl',
    { class: 'kv', id: 'inspection-facts' },
    fact('Done', formatTime(i.at, tz)),
    fact('Received by the gateway', formatTime(i.recordedAt, tz)),
    fact('Inspector', i.inspector),
    fact('Recorded by', i.recordedBy),
    fact('Whose', inspectionSideWords(i)),
    covered ? fact('Covered', covered) : [],
    i.hauler ? fact('Hauler', `${i.hauler.name}, DEC permit ${i.hauler.permit}`) : [],
    fact('Evidence log entry', i.logIndex !== undefined ? `No. ${i.logIndex}` : 'Not yet in the log'),
  );
  const out: HTMLElement[] = [facts];
  if (i.notes) out.push(h('h3', null, 'Notes'), h('p', { class: 'notes', id: 'inspection-notes' }, i.notes));
  out.push(findings(i, site));
  if (i.deficiencies?.length)
    out.push(
      h('h3', null, 'Deficiencies to remedy'),
      h(
        'ul',
        { id: 'inspection-deficiencies' },
        i.deficiencies.map((d) =>
          h('li', null, h('strong', null, DEFICIENCY_KIND_LABELS[d.kind]), `: ${d.note}`),
        ),
      ),
    );
  out.push(
    i.signature
      ? signatureView(i.signature, formatTime(i.at, tz))
      : h('p', { class: 'muted small', id: 'inspection-signature' }, 'Recorded without a signature.'),
  );
  return out;
}

function findings(i: InspectionDto, site: SiteView): HTMLElement {
  const f = i.findings ?? [];
  const box = h('div', { id: 'inspection-findings' }, h('h3', null, 'Findings'));
  if (f.length === 0) {
    box.append(h('p', { class: 'muted' }, 'No finding at a practice was recorded with this inspection.'));
    return box;
  }
  const label = (practice: string) =>
    site.practices?.find((p) => p.id === practice)?.label ?? 'A practice the site no longer lists';
  const rows = f.map((x) =>
    h(
      'tr',
      { 'data-status': x.status },
      cell('Practice', label(x.practice)),
      cell('Finding', h('span', { class: `finding finding-${x.status}` }, FINDING_STATUS_LABELS[x.status])),
      cell('Note', x.note || '—'),
      cell('Photos', x.photos.length ? photoThumbs(x.photos, label(x.practice)) : 'None'),
    ),
  );
  box.append(
    h(
      'div',
      { class: 'table-wrap' },
      h(
        'table',
        { class: 'stack' },
        h(
          'thead',
          null,
          h(
            'tr',
            null,
            ['Practice', 'Finding', 'Note', 'Photos'].map((t) => h('th', { scope: 'col' }, t)),
          ),
        ),
        h('tbody', null, rows),
      ),
    ),
  );
  return box;
}
