/**
 * Milestone notices (town law 001, A(1)): the applicant tells the town, at least 48 hours ahead, when a
 * construction milestone will take place. A notice is recorded whatever its time (one filed late, or for
 * a time already past, is what the town most wants to know), marked late when filed less than 48 hours
 * before its milestone. Each is an entry of the evidence log, written in the same transaction.
 */
import {
  type Milestone,
  type NoticeDto,
  type NoticeFiled,
  noticeLate,
} from '../../../shared/src/api/notices.ts';
import { noticeDto } from './mapping.ts';
import type { AlertStores } from './stores/index.ts';
import type { RangeQuery } from './types.ts';
import { ulid } from './ulid.ts';
import type { UnitOfWork } from './unit.ts';

export interface NoticeInput {
  siteId: string;
  milestone: Milestone;
  /** When the milestone will take place (epoch ms). */
  at: number;
}

export class Notices {
  constructor(
    private readonly stores: Pick<AlertStores, 'notices'>,
    private readonly unit: Pick<UnitOfWork, 'run'>,
    private readonly now: () => number,
  ) {}

  /** Records a notice filed now by `actor`; the caller has checked the site and the time. */
  file(input: NoticeInput, actor: string): NoticeFiled {
    return this.unit.run(this.now(), (u) => {
      const id = `notice-${ulid(u.now)}`;
      const late = noticeLate(u.now, input.at);
      this.stores.notices.append({
        id,
        site_id: input.siteId,
        milestone: input.milestone,
        at: input.at,
        filed_at: u.now,
        filed_by: actor,
        late: late ? 1 : 0,
      });
      return { id, late };
    });
  }

  /** Notices whose milestone falls in the range (inclusive), in time order. */
  list(q: RangeQuery = {}): NoticeDto[] {
    return this.stores.notices.query(q).map(noticeDto);
  }
}
