/**
 * Which evidence-log entries a compliance report cites: each storm's record and the readings it rests
 * on (its gauge's readings from start to end, and the one before, which a counter's first increment is
 * measured from), each duty's history entries and the readings behind them (the crossing, the cleanout,
 * the start and end of a gap: the device's reading at each entry's source time), the inspections,
 * extensions and certifications.
 */
import type { AlertDto, ExtensionDto, InspectionDto, StormDto } from '../alerts/dto.ts';
import { type Citations, cite, readingIndexAt, stormReadingIndexes } from '../evidence/citations.ts';
import type { EvidenceLog } from '../evidence/log.ts';
import type { Db } from '../store/types.ts';

export interface Cited {
  storms: StormDto[];
  alerts: AlertDto[];
  inspections: InspectionDto[];
  extensions: ExtensionDto[];
  certifications: Array<{ logIndex: number }>;
  changes: Array<{ logIndex: number }>;
}

export function reportCitations(db: Db, log: EvidenceLog, r: Cited, size: number): Citations {
  const idx: number[] = [];
  const stormReadings = stormReadingIndexes(db);
  const readingAt = readingIndexAt(db);
  for (const s of r.storms) {
    if (s.logIndex !== undefined) idx.push(s.logIndex);
    idx.push(...stormReadings(s.siteId, s.deviceId, Date.parse(s.start), Date.parse(s.end)));
  }
  for (const a of r.alerts)
    for (const h of a.history) {
      if (h.logIndex !== undefined) idx.push(h.logIndex);
      if (a.deviceId && h.sourceAt) {
        const at = readingAt(a.siteId, a.deviceId, Date.parse(h.sourceAt));
        if (at !== undefined) idx.push(at);
      }
    }
  for (const x of [...r.inspections, ...r.extensions]) if (x.logIndex !== undefined) idx.push(x.logIndex);
  for (const c of [...r.certifications, ...r.changes]) idx.push(c.logIndex);
  return cite(db, log, idx, size);
}
