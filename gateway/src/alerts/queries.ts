/** The engine's queries for the API and the reports: alerts, storms, inspections, extensions. */

import {
  type AlertDto,
  type ExtensionDto,
  INSPECTION_KINDS,
  type InspectionDto,
  type StormDto,
} from '../../../shared/src/api/alerts.ts';
import { meetsStormInspection, stormInspectionSides } from '../rules/index.ts';
import { alertDto, extensionDto, inspectionDto, stormDto } from './mapping.ts';
import type { AlertStores } from './stores/index.ts';
import type { AlertQuery, HistoryRow, InspectionQuery, RangeQuery, StormRow } from './types.ts';

export class Queries {
  /** The inspection kinds that meet a storm's inspection duty (the storm rule's module says which). */
  private readonly stormKinds = INSPECTION_KINDS.filter(meetsStormInspection);
  /** The sides whose inspections meet it. */
  private readonly stormSides = stormInspectionSides();

  constructor(
    private readonly stores: AlertStores,
    private readonly now: () => number,
  ) {}

  /**
   * Alerts with their history. The histories are read (all at once, as they were at this call: up to the
   * last entry) only when one of them is read, so a caller that wants the alerts alone (the fleet's
   * state) does not pay for long histories.
   */
  listAlerts(q: AlertQuery = {}): AlertDto[] {
    const now = this.now();
    const rows = this.stores.alerts.query(q, now);
    const headSeq = this.stores.logged.lastSeq('alert_history');
    let hist: Map<string, HistoryRow[]> | undefined;
    const of = (id: string) => {
      hist ??= this.stores.history.ofMany(rows.map((r) => r.id));
      return (hist.get(id) ?? []).filter((h) => h.seq <= headSeq);
    };
    return rows.map((r) => alertDto(r, () => of(r.id), now));
  }

  getAlert(id: string): AlertDto | undefined {
    const row = this.stores.alerts.byId(id);
    return row ? alertDto(row, this.stores.history.of(row.id), this.now()) : undefined;
  }

  /** Storm events overlapping [from, to], each with whether its inspection was on time, late or missing. */
  listStorms(q: RangeQuery = {}): StormDto[] {
    const now = this.now();
    return this.stores.storms.query(q).map((s) => this.storm(s, now));
  }

  /**
   * A storm record with its inspection: the first of a kind that meets its duty made after its last tip,
   * once the storm has ended (the storm rule's reading of "within 24 hours of any storm event": the
   * inspection follows the storm). Those made while it rained (first tip to last) are listed beside it;
   * they meet nothing.
   */
  storm(s: StormRow, now: number): StormDto {
    if (s.qualified !== 1) return stormDto(s, undefined, now);
    const inspection =
      s.closed === 1
        ? this.stores.inspections.firstMeeting(s.site_id, s.end + 1, this.stormKinds, this.stormSides)
        : undefined;
    const during = this.stores.inspections.within(s.site_id, s.start, s.end, this.stormKinds);
    return stormDto(s, inspection, now, during);
  }

  /** A site's inspections with a finding of violation, oldest first (what halts work). */
  violationInspections(siteId: string): InspectionDto[] {
    return this.stores.inspections.withViolations(siteId).map(inspectionDto);
  }

  listInspections(q: InspectionQuery = {}): InspectionDto[] {
    return this.stores.inspections.query(q).map(inspectionDto);
  }

  getInspection(id: string): InspectionDto | undefined {
    const row = this.stores.inspections.byId(id);
    return row ? inspectionDto(row) : undefined;
  }

  listExtensions(q: RangeQuery & { alertId?: string } = {}): ExtensionDto[] {
    return this.stores.extensions.query(q).map(extensionDto);
  }
}
