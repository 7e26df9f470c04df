/**
 * The importer's policy for a live gateway: a logger file for a registered rain gauge is read with the
 * device's own tip size, and continues the device's counter and sequence where its stored readings end
 * (re-imported tips are duplicates by time), then goes through the same ingest stage as live data.
 */

import type { DeviceRegistry } from '../config/registry.ts';
import type { ReadingStore } from '../store/readings.ts';
import type { ImportQuery } from './request.ts';
import { type ImportSummary, importText, type ReadingSink } from './run.ts';

export interface LoggerImporterOptions {
  registry: DeviceRegistry;
  readings: Pick<ReadingStore, 'lastOf'>;
  sink: ReadingSink;
  now: () => number;
  /** After the file: its readings' evaluation committed, so the answer shows the storms it made (the rules stage's `settle`). */
  settle?: () => void;
}

export function loggerImporter(o: LoggerImporterOptions) {
  return async (text: string, q: ImportQuery): Promise<ImportSummary> => {
    const device = o.registry.lookup(q.siteId, q.deviceId)!;
    const last = o.readings.lastOf(q.siteId, q.deviceId);
    const summary = await importText(
      text,
      q.name,
      {
        siteId: q.siteId,
        deviceId: q.deviceId,
        tipMm: (device.device.inchesPerTip ?? 0.01) * 25.4,
        ...(q.format ? { format: q.format } : {}),
        ...(q.utcOffsetMinutes !== undefined ? { utcOffsetMinutes: q.utcOffsetMinutes } : {}),
        ...(q.timeZone ? { timeZone: q.timeZone } : {}),
        ...(q.skipBefore ? { skipBefore: q.skipBefore } : {}),
        ...(last ? { startCount: last.values.rainTips ?? 0, startSeq: (last.seq ?? 0) + 1 } : {}),
        now: o.now,
      },
      o.sink,
    );
    o.settle?.();
    return summary;
  };
}
