/**
 * The storm events of the period and their inspections: the storm rule's duty is its storms' (the rule
 * module that keeps them, `RuleModule.storms`), so its alerts are not listed among the duties. On the
 * page a table and each storm's rain chart; in the CSV a `storm` row each, under the storm rule's id.
 */
import { stormRuleId } from '../../rules/index.ts';
import { badge, none, type ReportSection, table } from './section.ts';

const HEAD = [
  'Rain gauge',
  'Start',
  'End',
  'Total',
  'Reached the threshold',
  'Inspection due',
  'Inspected',
  'Status',
];

/** The inspections made while a storm still rained: shown in the row, they met nothing. */
function during(
  list: ReadonlyArray<{ inspectedAt: string }> | undefined,
  t: (iso?: string) => string,
): string {
  if (!list?.length) return '';
  return `<br><small>Inspected during the storm (does not count): ${list.map((i) => t(i.inspectedAt)).join('; ')}</small>`;
}

export const storms: ReportSection<'storms'> = {
  id: 'storms',
  collect(i) {
    const qualified = i.storms.filter((s) => s.qualified);
    const stormStatus = (s: string) => qualified.filter((x) => x.inspection.status === s).length;
    return {
      fields: { storms: i.storms },
      counts: {
        storms: i.storms.length,
        qualifyingStorms: qualified.length,
        stormInspectionsOnTime: stormStatus('on-time'),
        stormInspectionsLate: stormStatus('late'),
        stormInspectionsMissing: stormStatus('missing'),
        stormInspectionsPending: stormStatus('pending'),
      },
    };
  },
  html: {
    region: 'storms',
    render(r, { t, device, charts, chartsLeftOut }) {
      const list = r.storms;
      if (!list.length)
        return `<h2>Storm events and their inspections</h2>${none('No rain recorded in this period.')}`;
      const rows = list.map(
        (x) =>
          `<tr><td>${device(x.deviceId)}</td><td>${t(x.start)}</td><td>${t(x.end)}</td><td>${x.inches.toFixed(2)} in<br><small>${x.tips} tips</small></td><td>${
            x.qualified ? `Yes, at ${t(x.thresholdAt)}` : 'No'
          }</td><td>${t(x.dueAt)}</td><td>${t(x.inspection.inspectedAt)}${during(x.inspectedDuring, t)}</td><td>${badge(x.qualified ? x.inspection.status : 'not-required')}</td></tr>`,
      );
      const figures = list
        .filter((x) => charts.has(x.id))
        .map(
          (x) =>
            `<figure class="storm"><figcaption>Storm at ${device(x.deviceId)}, ${t(x.start)} to ${t(x.end)}: ${x.inches.toFixed(2)} in</figcaption>${charts.get(x.id)}</figure>`,
        );
      const leftOut = chartsLeftOut
        ? `<p class="none">${chartsLeftOut} more storm(s) are listed in the table above without a chart: a report draws at most ${charts.size} charts, those that reached the threshold first.</p>`
        : '';
      return `<h2>Storm events and their inspections</h2>${table(HEAD, rows)}${figures.join('')}${leftOut}`;
    },
  },
  csv: (r) =>
    r.storms.map((s) => [
      'storm',
      s.id,
      stormRuleId() ?? '',
      s.deviceId,
      s.start,
      s.dueAt ?? '',
      s.inspection.inspectedAt ?? '',
      s.qualified ? s.inspection.status : 'not-required',
      `${s.inches.toFixed(3)} in (${s.tips} tips), ended ${s.end}`,
    ]),
};
