/**
 * Where a construction site's records stand now (town law 001), for its page: each expected milestone with
 * the notice on file or flagged (its time passed with no notice: "at least 48 hours before", A(1)), the
 * one-year inspection after the last final acceptance with its due time ("not less than one year from the
 * date of final acceptance", guarantees A), and the final stabilization with the officer's confirmation.
 * Pure: from the site's records and notices as stored, the duties' own figures (`shared/src/days.ts`).
 */
import { MILESTONES, type Milestone, NOTICE_LEAD_MS } from '../../../shared/src/api/milestones.ts';
import type { NoticeDto } from '../../../shared/src/api/notices.ts';
import type { SiteRecordDto, SiteRecordStanding } from '../../../shared/src/api/siteRecords.ts';
import { yearsFromDate } from '../../../shared/src/days.ts';
import { toIso } from '../../../shared/src/time.ts';

type Of<K extends SiteRecordDto['body']['kind']> = SiteRecordDto & {
  body: Extract<SiteRecordDto['body'], { kind: K }>;
};
const ofKind = <K extends SiteRecordDto['body']['kind']>(
  records: readonly SiteRecordDto[],
  kind: K,
): Of<K>[] => records.filter((r): r is Of<K> => r.body.kind === kind);

function milestones(records: readonly SiteRecordDto[], notices: readonly NoticeDto[], now: number) {
  const expected = new Map<Milestone, number>();
  for (const r of ofKind(records, 'expected-milestone')) expected.set(r.body.milestone, Date.parse(r.at));
  return [...expected].map(([milestone, at]) => {
    const first = notices
      .filter((n) => n.milestone === milestone)
      .sort((a, b) => a.filedAt.localeCompare(b.filedAt))[0];
    return {
      milestone,
      label: MILESTONES[milestone],
      expectedAt: toIso(at),
      noticeBy: toIso(at - NOTICE_LEAD_MS),
      notice: first ? { filedAt: first.filedAt, late: first.late } : null,
      flagged: !first && at <= now,
    };
  });
}

function oneYear(records: readonly SiteRecordDto[], tz: string): SiteRecordStanding['oneYear'] {
  const last = ofKind(records, 'final-acceptance').at(-1);
  if (!last) return null;
  const accepted = Date.parse(last.at);
  const inspection = ofKind(records, 'one-year-inspection').find((r) => Date.parse(r.at) >= accepted);
  return {
    acceptedAt: last.at,
    // The last instant on time, as the duty's due time (`rules/util.ts`, dueBefore).
    dueAt: toIso(yearsFromDate(accepted, 1, tz) - 1),
    inspection: inspection ? { inspectedAt: inspection.at, acceptable: inspection.body.acceptable } : null,
  };
}

function stabilization(records: readonly SiteRecordDto[]): SiteRecordStanding['stabilization'] {
  const first = ofKind(records, 'final-stabilization')[0];
  if (!first) return null;
  const c = ofKind(records, 'stabilization-confirmation').find((r) => r.body.confirms === first.id);
  return {
    recordId: first.id,
    stabilizedAt: first.at,
    description: first.body.description,
    recordedBy: first.recordedBy,
    confirmation: c ? { confirmedAt: c.at, confirmedBy: c.recordedBy, note: c.body.note } : null,
  };
}

/** The standing of a site's records (`records` in the order recorded, `notices` the site's) at `now`. */
export function siteRecordStanding(
  records: readonly SiteRecordDto[],
  notices: readonly NoticeDto[],
  now: number,
  tz: string,
): SiteRecordStanding {
  return {
    milestones: milestones(records, notices, now),
    oneYear: oneYear(records, tz),
    stabilization: stabilization(records),
  };
}
