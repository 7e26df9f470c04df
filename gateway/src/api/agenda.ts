/**
 * The officer's agenda, assembled from the milestone notices, the open duties and the inspection reports
 * delivered (on the day each was recorded): each item is put on
 * its time's date in its site's zone; the duties past their due time are listed first, as overdue,
 * whatever day they were due. Duties are labelled by their rule module's label (`ruleLabel`), never by a
 * switch on the rule id. Pure: the caller gives the sites, notices and duties it may see.
 */
import type { Agenda, AgendaItem } from '../../../shared/src/api/agenda.ts';
import type { AlertDto, InspectionDto } from '../../../shared/src/api/alerts.ts';
import type { NoticeDto } from '../../../shared/src/api/notices.ts';
import { addDays, formatClock, formatLong, localDay } from '../../../shared/src/time.ts';
import { ruleLabel } from '../rules/index.ts';

export interface AgendaSite {
  name: string;
  timezone: string;
}

/** The days from `from` to `to` (YYYY-MM-DD, inclusive), at most `max` of them. */
export function daysBetween(from: string, to: string, max = Number.POSITIVE_INFINITY): string[] {
  const out: string[] = [];
  let [y, m, d] = from.split('-').map(Number) as [number, number, number];
  for (let day = from; day <= to && out.length < max; ) {
    out.push(day);
    ({ year: y, month: m, day: d } = addDays(y, m, d, 1));
    day = `${y}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
  }
  return out;
}

export function buildAgenda(
  from: string,
  to: string,
  siteOf: (id: string) => AgendaSite | undefined,
  notices: readonly NoticeDto[],
  duties: readonly AlertDto[],
  reports: readonly InspectionDto[] = [],
): Agenda {
  const days = new Map(daysBetween(from, to).map((d) => [d, [] as AgendaItem[]]));
  const overdue: AgendaItem[] = [];
  for (const n of notices) {
    const site = siteOf(n.siteId);
    if (!site) continue;
    const at = Date.parse(n.at);
    const lead = n.late ? `; notified late, ${Math.max(n.leadHours, 0)} h before` : '';
    days.get(localDay(at, site.timezone))?.push({
      kind: 'milestone',
      siteId: n.siteId,
      siteName: site.name,
      at: n.at,
      timezone: site.timezone,
      label: n.label,
      detail: `${n.label} at ${site.name}, ${formatClock(at, site.timezone)}: inspect${lead}`,
      ref: n.id,
      overdue: false,
    });
  }
  for (const a of duties) {
    const site = siteOf(a.siteId);
    if (!site || a.dueAt === null) continue;
    const due = Date.parse(a.dueAt);
    const label = ruleLabel(a.rule);
    const item: AgendaItem = {
      kind: 'duty',
      siteId: a.siteId,
      siteName: site.name,
      at: a.dueAt,
      timezone: site.timezone,
      label,
      detail: a.overdue
        ? `${label} at ${site.name}: was due ${formatLong(due, site.timezone)}`
        : `${label} at ${site.name}: due by ${formatClock(due, site.timezone)}`,
      ref: a.id,
      overdue: a.overdue,
    };
    if (a.overdue) overdue.push(item);
    else days.get(localDay(due, site.timezone))?.push(item);
  }
  for (const i of reports) {
    const site = siteOf(i.siteId);
    if (!site) continue;
    const recorded = Date.parse(i.recordedAt);
    const findings = i.findings ?? [];
    const photos = findings.reduce((n, f) => n + f.photos.length, 0);
    const what =
      findings.length > 0
        ? `${findings.length} finding${findings.length === 1 ? '' : 's'}, ${photos} photo${photos === 1 ? '' : 's'}`
        : 'no findings at practices';
    days.get(localDay(recorded, site.timezone))?.push({
      kind: 'report',
      siteId: i.siteId,
      siteName: site.name,
      at: i.recordedAt,
      timezone: site.timezone,
      label: 'Inspection report',
      detail: `Inspection report of ${formatLong(Date.parse(i.at), site.timezone)} by ${i.inspector} at ${site.name}: ${what}`,
      ref: i.id,
      overdue: false,
    });
  }
  const byTime = (x: AgendaItem, y: AgendaItem) => Date.parse(x.at) - Date.parse(y.at);
  return {
    from,
    to,
    overdue: overdue.sort(byTime),
    days: [...days].map(([day, items]) => ({ day, items: items.sort(byTime) })),
  };
}
