/**
 * The developer's records of a construction site (town law 001): contractors' certifications, the SWPPP
 * kept on site, expected milestones, the officer's final acceptance and the one-year inspection, the final
 * stabilization and the officer's confirmation of it (`shared/src/api/siteRecords.ts`). Each is an entry
 * of the evidence log, written in the engine's unit of work (`port.ts`) with the record fed to the site's
 * rules (`rules/developer-records/`), which keep the duties the records meet: no certification on file, no
 * SWPPP on site (both ended by the final stabilization), the one-year inspection, a milestone passed with
 * no notice. Never changed: a later record of the same kind adds to (or, for an expected milestone,
 * replaces the date of) the earlier. Where they stand now: `siteRecordStanding.ts`.
 */
import { MILESTONES, type Milestone } from '../../../shared/src/api/milestones.ts';
import {
  recordTime,
  type SiteRecordBody,
  type SiteRecordDto,
  siteRecordBody,
} from '../../../shared/src/api/siteRecords.ts';
import { toIso } from '../../../shared/src/time.ts';
import { logged } from '../alerts/mapping.ts';
import type { RangeQuery } from '../alerts/types.ts';
import { ulid } from '../alerts/ulid.ts';
import type { EnforcementPort, SiteRecordFeed } from './port.ts';
import type { SiteRecordRow, SiteRecordStore } from './stores/siteRecords.ts';

/** A record's fields with every time as UTC ISO, so a record reads the same whoever gave its offset. */
function normalised(b: SiteRecordBody): SiteRecordBody {
  const utc = (t: string) => toIso(Date.parse(t));
  switch (b.kind) {
    case 'certification':
      return { ...b, signedAt: utc(b.signedAt) };
    case 'swppp':
      return { ...b, since: utc(b.since) };
    case 'expected-milestone':
      return { ...b, expectedAt: utc(b.expectedAt) };
    case 'final-acceptance':
      return { ...b, acceptedAt: utc(b.acceptedAt) };
    case 'one-year-inspection':
      return { ...b, inspectedAt: utc(b.inspectedAt) };
    case 'final-stabilization':
      return { ...b, stabilizedAt: utc(b.stabilizedAt) };
    case 'stabilization-confirmation':
      return { ...b, confirmedAt: utc(b.confirmedAt) };
  }
}

/** A record in words, for lists and the report. */
export function recordSummary(b: SiteRecordBody): string {
  switch (b.kind) {
    case 'certification':
      return `${b.name}, ${b.title}, ${b.firm} (${b.firmAddress}; ${b.telephone})`;
    case 'swppp':
      return `kept by ${b.keptBy}, ${b.where}`;
    case 'expected-milestone':
      return MILESTONES[b.milestone as Milestone];
    case 'final-acceptance':
      return b.note || 'the facilities accepted by the town';
    case 'one-year-inspection':
      return `${b.acceptable ? 'found acceptable' : 'NOT found acceptable'}${b.note ? `: ${b.note}` : ''}`;
    case 'final-stabilization':
      return b.description;
    case 'stabilization-confirmation':
      return `the final stabilization confirmed${b.note ? `: ${b.note}` : ''}`;
  }
}

export function siteRecordDto(r: SiteRecordRow): SiteRecordDto {
  const body = siteRecordBody.parse(JSON.parse(r.body));
  return {
    id: r.id,
    siteId: r.site_id,
    kind: r.kind,
    siteSeq: r.site_seq,
    at: toIso(r.at),
    recordedAt: toIso(r.recorded_at),
    recordedBy: r.recorded_by,
    body,
    summary: recordSummary(body),
    ...logged(r),
  };
}

/** What the site's rules are fed of a record. */
export function recordFeed(siteId: string, id: string, b: SiteRecordBody, by: string): SiteRecordFeed {
  return {
    type: 'site-record',
    kind: b.kind,
    siteId,
    id,
    at: Date.parse(recordTime(b)),
    by,
    ...(b.kind === 'expected-milestone' ? { milestone: b.milestone } : {}),
    ...(b.kind === 'one-year-inspection' ? { acceptable: b.acceptable } : {}),
  };
}

export class SiteRecords {
  constructor(
    private readonly store: SiteRecordStore,
    private readonly port: Pick<EnforcementPort, 'run' | 'settle'>,
  ) {}

  /**
   * Records `given` for the site now, by `actor`; `check` runs inside the transaction against the site's
   * records as stored (a refusal throws, and nothing is kept). The caller has checked the site and role.
   */
  record(
    siteId: string,
    given: SiteRecordBody,
    actor: string,
    check: (existing: readonly SiteRecordDto[]) => void = () => {},
  ): SiteRecordDto {
    return this.port.run((u) => {
      check(this.store.ofSite(siteId).map(siteRecordDto));
      const body = normalised(given);
      const id = `record-${ulid(u.now)}`;
      const at = Date.parse(recordTime(body));
      const row = {
        id,
        site_id: siteId,
        kind: body.kind,
        at,
        recorded_at: u.now,
        recorded_by: actor,
        body: JSON.stringify(body),
      };
      this.store.append(row);
      u.feedRecord(recordFeed(siteId, id, body, actor));
      return siteRecordDto(this.store.ofSite(siteId).find((r) => r.id === id)!);
    });
  }

  /** A site's records in the order recorded (the engine's open slice committed first). */
  ofSite(siteId: string): SiteRecordDto[] {
    this.port.settle();
    return this.store.ofSite(siteId).map(siteRecordDto);
  }

  /** Records whose time falls in the range, in time order. */
  list(q: RangeQuery = {}): SiteRecordDto[] {
    this.port.settle();
    return this.store.query(q).map(siteRecordDto);
  }
}
