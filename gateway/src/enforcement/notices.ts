/**
 * Milestone notices (town law 001, A(1)): the applicant tells the town, at least 48 hours ahead, when a
 * construction milestone will take place. A notice is recorded whatever its time (one filed late, or for
 * a time already past, is what the town most wants to know), marked late when filed less than 48 hours
 * before its milestone. Each is an entry of the evidence log, written in the same transaction (the
 * engine's unit of work, `port.ts`).
 */
import {
  MILESTONES,
  type Milestone,
  type NoticeDto,
  type NoticeFiled,
  noticeLate,
} from '../../../shared/src/api/notices.ts';
import { toIso } from '../../../shared/src/time.ts';
import { logged } from '../alerts/mapping.ts';
import type { RangeQuery } from '../alerts/types.ts';
import { ulid } from '../alerts/ulid.ts';
import type { EnforcementPort } from './port.ts';
import type { NoticeRow, NoticeStore } from './stores/notices.ts';

export function noticeDto(n: NoticeRow): NoticeDto {
  return {
    id: n.id,
    siteId: n.site_id,
    milestone: n.milestone,
    label: MILESTONES[n.milestone] ?? n.milestone,
    at: toIso(n.at),
    filedAt: toIso(n.filed_at),
    filedBy: n.filed_by,
    late: n.late === 1,
    leadHours: Math.trunc((n.at - n.filed_at) / 3_600_000),
    ...logged(n),
  };
}

export interface NoticeInput {
  siteId: string;
  milestone: Milestone;
  /** When the milestone will take place (epoch ms). */
  at: number;
}

export class Notices {
  constructor(
    private readonly store: NoticeStore,
    private readonly port: Pick<EnforcementPort, 'run' | 'settle'>,
  ) {}

  /** Records a notice filed now by `actor`; the caller has checked the site and the time. */
  file(input: NoticeInput, actor: string): NoticeFiled {
    return this.port.run((u) => {
      const id = `notice-${ulid(u.now)}`;
      const late = noticeLate(u.now, input.at);
      this.store.append({
        id,
        site_id: input.siteId,
        milestone: input.milestone,
        at: input.at,
        filed_at: u.now,
        filed_by: actor,
        late: late ? 1 : 0,
      });
      // The developer-records rule flags a milestone passed with no notice: this one is on file now.
      u.feedRecord({
        type: 'site-record',
        kind: 'notice',
        siteId: input.siteId,
        id,
        at: u.now,
        by: actor,
        milestone: input.milestone,
      });
      return { id, late };
    });
  }

  /**
   * Notices whose milestone falls in the range (inclusive), in time order; the engine's open slice of
   * readings is committed first.
   */
  list(q: RangeQuery = {}): NoticeDto[] {
    this.port.settle();
    return this.store.query(q).map(noticeDto);
  }
}
