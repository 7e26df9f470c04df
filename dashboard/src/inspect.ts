/** Recording an inspection (storm, routine, annual, cleanout, other). */
import { describeError, errorDetail, post } from './api.js';
import { byId, h, replace } from './dom.js';
import { formatTime, utcToZonedInput, zonedToUtc } from './format.js';
import { session } from './session.js';
import { ruleLabel, siteZone, state } from './state.js';

const field = (id: string) => byId(id) as HTMLInputElement;

function zoneHint() {
  byId('i-at-zone').textContent = `(${siteZone(field('i-site').value)})`;
}

export function initInspectionForm() {
  const sel = byId('i-site') as HTMLSelectElement;
  const keep = sel.value;
  replace(
    sel,
    state.sites.map((s) => h('option', { value: s.id }, s.name)),
  );
  if (keep) sel.value = keep;
  if (!field('i-at').value) field('i-at').value = utcToZonedInput(Date.now(), siteZone(sel.value));
  zoneHint();
}

/** Sets the form's site (and the kind of inspection, when given: #/inspect/<site>/<kind>). */
export function presetInspectionSite(siteId: string, kind = '') {
  const sel = byId('i-site') as HTMLSelectElement;
  if (state.sites.some((s) => s.id === siteId)) sel.value = siteId;
  const kinds = byId('i-kind') as HTMLSelectElement;
  if (kind && [...kinds.options].some((o) => o.value === kind)) kinds.value = kind;
  zoneHint();
}

export function bindInspectionForm() {
  const form = byId('inspect-form') as HTMLFormElement;
  const out = byId('inspect-result');
  field('i-site').addEventListener('change', zoneHint);
  byId('i-now').addEventListener('click', () => {
    field('i-at').value = utcToZonedInput(Date.now(), siteZone(field('i-site').value));
  });
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    out.className = 'msg';
    out.textContent = '';
    const siteId = field('i-site').value;
    const tz = siteZone(siteId);
    const at = zonedToUtc(field('i-at').value, tz);
    const inspector = field('i-inspector').value.trim();
    const problems = [];
    if (!Number.isFinite(at)) problems.push('the time of the inspection');
    if (!inspector) problems.push("the inspector's name");
    if (problems.length) {
      out.className = 'msg msg-bad';
      out.textContent = `Please enter ${problems.join(' and ')}.`;
      return;
    }
    if (!session.me) {
      out.className = 'msg msg-bad';
      out.textContent = 'Sign in (or enter an API token at the top of the page) first.';
      return;
    }
    const notes = field('i-notes').value.trim();
    try {
      const res: { inspection: { id: string; at: string }; closedAlertIds: string[] } = await post(
        '/api/inspections',
        {
          siteId,
          at: new Date(at).toISOString(),
          inspector,
          kind: field('i-kind').value,
          ...(notes ? { notes } : {}),
        },
      );
      out.className = 'msg msg-ok';
      const closed = res.closedAlertIds.length;
      // The rules of the alerts it closed, as far as the page knows them (those it holds as active).
      const rules = [
        ...new Set(
          res.closedAlertIds.flatMap((id) => {
            const a = state.active.get(id);
            return a ? [ruleLabel(a.rule)] : [];
          }),
        ),
      ];
      out.textContent = `Recorded inspection ${res.inspection.id} at ${formatTime(res.inspection.at, tz)}.${
        closed
          ? ` It closed ${closed} alert${closed === 1 ? '' : 's'}${rules.length ? ` (${rules.join(', ')})` : ''}.`
          : ''
      }`;
      field('i-notes').value = '';
    } catch (err) {
      out.className = 'msg msg-bad';
      out.textContent = describeError(err);
      out.title = errorDetail(err);
    }
  });
}
