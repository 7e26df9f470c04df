/**
 * The duties: every alert open (or overdue) at some time in the period, whatever day it was raised, each
 * on time, late, missing, overdue or still open, in the list its rule module puts it in
 * (`RuleModule.report`: routine inspections, cleanouts, remedies, gaps, other), never by its rule's id
 * here. The storm rule's alerts are its storms' inspection status (`storms.ts`), not listed twice. The
 * summary counts the duties whose rule says they are duties, and the gaps: those where their device was
 * expected to report in the period (`gapExpected`, the same test as the charts').
 */
import type { AlertDto } from '../../../../shared/src/api/alerts.ts';
import { causeWords } from '../../../../shared/src/api/resolutionWords.ts';
import { formatLong } from '../../../../shared/src/time.ts';
import {
  deadlineReadings,
  gapExpected,
  measureOf,
  reportOf,
  ruleLabel,
  ruleModule,
} from '../../rules/index.ts';
import { type ReportSection as DutyList, REPORT_SECTIONS } from '../../rules/module.ts';
import type { DeadlineReading, DutyRow, DutyStatus, ReportInputs } from '../report.ts';
import { escapeXml as esc } from '../stormChart.ts';
import { badge, type HtmlContext, none, type ReportSection, table } from './section.ts';

/** The lists in the page's order, with their titles and the name of their rows in the CSV. */
const LISTS: ReadonlyArray<{ list: DutyList; title: string; row: string }> = [
  { list: 'routine', title: 'Routine inspections (every 7 days)', row: 'routine' },
  { list: 'cleanouts', title: 'Sediment cleanouts', row: 'cleanout' },
  { list: 'remedies', title: 'Alarms, remedies, pumping and annual inspections', row: 'remedy' },
  { list: 'other', title: 'Other alerts', row: 'other' },
  {
    list: 'gaps',
    title: 'Gaps in the evidence (silent devices: no evidence, not "nothing happened")',
    row: 'gap',
  },
];

/**
 * On time, late, missing (a storm or routine inspection never done), overdue, open, resolved (no
 * deadline), or superseded: closed because a record (an inspection or pump-out on record, or logged late)
 * showed its clock ran from the wrong start; neither met nor missed.
 */
export function dutyStatus(a: AlertDto, now: number): DutyStatus {
  if (a.status === 'resolved' && a.resolution?.evidence.superseded === true) return 'superseded';
  if (a.status === 'resolved') {
    if (a.dueAt === null) return 'resolved';
    return a.withinDeadline === false ? 'late' : 'on-time';
  }
  if (a.dueAt !== null && now > Date.parse(a.dueAt)) return reportOf(a.rule).pastDue;
  return 'open';
}

/** When the work was done, for a duty met by a submittal (its resolution's `inspectedAt`). */
function workAt(a: AlertDto): string | undefined {
  const at = a.resolution?.evidence.inspectedAt;
  return measureOf(a.rule) === 'submittal' && typeof at === 'string' ? at : undefined;
}

/** What closed it, in words after "Resolved", times in the site's zone. */
function resolutionOf(a: AlertDto, tz: string): Pick<DutyRow, 'cause' | 'resolution'> {
  const cause = a.resolution?.cause;
  if (!cause) return {};
  return { cause, resolution: causeWords(cause, (iso) => formatLong(Date.parse(iso), tz)) };
}

function row(a: AlertDto, now: number, tz: string): DutyRow {
  const work = workAt(a);
  return {
    alertId: a.id,
    rule: a.rule,
    deviceId: a.deviceId ?? null,
    began: a.raisedAt,
    dueAt: a.dueAt,
    originalDueAt: a.originalDueAt ?? null,
    resolvedAt: a.resolvedAt ?? null,
    resolvedBy: a.resolution?.by ?? null,
    ...resolutionOf(a, tz),
    status: dutyStatus(a, now),
    message: a.message,
    duty: reportOf(a.rule).duty,
    pastDue: reportOf(a.rule).pastDue,
    historyIndexes: a.history.map((h) => h.logIndex).filter((i): i is number => i !== undefined),
    ...(work ? { workAt: work } : {}),
  };
}

/** Whether an alert was open at some time in [from, to): raised before its end, not resolved before its start. */
export function openDuring(a: AlertDto, from: number, to: number): boolean {
  return Date.parse(a.raisedAt) < to && (a.resolvedAt === undefined || Date.parse(a.resolvedAt) >= from);
}

/** The alerts a report lists as duties: the storm rule's are the storm records' inspection status, not listed twice. */
export function listedAlerts(alerts: AlertDto[]): AlertDto[] {
  return alerts.filter((a) => ruleModule(a.rule)?.storms !== true);
}

/**
 * Whether an alert of the gaps list falls where its device was expected to report in the period (the
 * charts' test): not after the device was retired, nor before it was added. From its start to its end
 * (still open: for ever). An alert of another list, or of no known device: yes.
 */
function inService(a: AlertDto, i: Pick<ReportInputs, 'services' | 'period'>): boolean {
  const service = a.deviceId === undefined ? undefined : i.services?.get(a.deviceId);
  if (!service || reportOf(a.rule).section !== 'gaps') return true;
  const from = Date.parse(a.raisedAt);
  const to = a.resolvedAt === undefined ? Number.POSITIVE_INFINITY : Date.parse(a.resolvedAt);
  return gapExpected({ from, to: Math.max(to, from + 1) }, service, i.period);
}

/** The alerts a report may list: a gap only where its device was expected to report in the period. */
export function alertsInService(
  alerts: AlertDto[],
  i: Pick<ReportInputs, 'services' | 'period'>,
): AlertDto[] {
  return alerts.filter((a) => inService(a, i));
}

/** When it was done: for a duty met by a submittal, the submittal and the work's time beside it. */
function done(d: DutyRow, t: HtmlContext['t']): string {
  // What closed it ("by the storm inspection by …"); before causes were kept, who.
  const by = d.resolution
    ? `<br><small class="cause">${esc(d.resolution)}</small>`
    : d.resolvedBy
      ? `<br><small>by ${esc(d.resolvedBy)}</small>`
      : '';
  return d.workAt
    ? `submitted ${t(d.resolvedAt)}<br><small>work done ${t(d.workAt)}</small>${by}`
    : `${t(d.resolvedAt)}${by}`;
}

function dutyTable(
  title: string,
  rows: DutyRow[],
  readings: DeadlineReading[],
  { t, device }: HtmlContext,
): string {
  return `<h3>${esc(title)}</h3>${readings.map((r) => `<p class="reading">${esc(r.text)}</p>`).join('')}${
    rows.length
      ? table(
          ['Duty', 'Device', 'Began', 'Due', 'Done', 'Status', 'Detail'],
          rows.map(
            (d) =>
              `<tr><td>${esc(ruleLabel(d.rule))}</td><td>${device(d.deviceId)}</td><td>${t(d.began)}</td><td>${t(d.dueAt)}${
                d.originalDueAt && d.originalDueAt !== d.dueAt
                  ? `<br><small>originally ${t(d.originalDueAt)}</small>`
                  : ''
              }</td><td>${done(d, t)}</td><td>${badge(d.status)}</td><td>${esc(d.message)}</td></tr>`,
          ),
        )
      : none('None in this period.')
  }`;
}

/** The CSV's detail of a duty: its message, when the work was done for a submittal, and what closed it. */
function detail(d: DutyRow): string {
  const text = d.workAt ? `${d.message} (submitted; work done ${d.workAt})` : d.message;
  return d.resolution ? `${text} Resolved ${d.resolution}.` : text;
}

export const duties: ReportSection<DutyList | 'deadlineReadings'> = {
  id: 'duties',
  collect(i) {
    const rows = listedAlerts(alertsInService(i.alerts, i)).map((a) => row(a, i.now, i.timezone));
    const list = (s: DutyList) => rows.filter((r) => reportOf(r.rule).section === s);
    const counted = rows.filter((r) => r.duty);
    const count = (s: DutyStatus) => counted.filter((r) => r.status === s).length;
    const gaps = list('gaps');
    return {
      fields: {
        routine: list('routine'),
        cleanouts: list('cleanouts'),
        remedies: list('remedies'),
        other: list('other'),
        gaps,
        deadlineReadings: deadlineReadings(i.site, [...new Set(rows.map((r) => r.rule))]),
      },
      counts: {
        dutiesOnTime: count('on-time'),
        dutiesLate: count('late'),
        dutiesMissing: count('missing'),
        dutiesOverdue: count('overdue'),
        dutiesOpen: count('open'),
        gaps: gaps.length,
      },
    };
  },
  html: {
    region: 'duties',
    render: (r, c) =>
      `<h2>Duties</h2>\n${LISTS.map((l) =>
        dutyTable(
          l.title,
          r[l.list],
          r.deadlineReadings.filter((d) => d.section === l.list),
          c,
        ),
      ).join('\n')}`,
  },
  // In the CSV, the lists in the rules' order of them.
  // A reading of a deadline is a row of its own (`reading`); a submittal's row says when the work was done.
  csv: (r) =>
    REPORT_SECTIONS.flatMap((list) => {
      const name = LISTS.find((l) => l.list === list)?.row ?? list;
      return [
        ...r.deadlineReadings
          .filter((d) => d.section === list)
          .map((d) => ['reading', '', d.rule, '', '', '', '', '', d.text]),
        ...r[list].map((d) => [
          name,
          d.alertId,
          d.rule,
          d.deviceId ?? '',
          d.began,
          d.dueAt ?? '',
          d.resolvedAt ?? '',
          d.status,
          detail(d),
        ]),
      ];
    }),
};
