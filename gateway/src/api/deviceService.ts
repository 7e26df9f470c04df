/**
 * Each device's time in service as the store knows it (when it was added to its site and retired, its
 * first reading), for the silence rule's `expectedSpans`: the charts and the report ask it the same way.
 */
import type { Catalogue } from '../admin/catalogue.ts';
import type { DeviceService } from '../rules/index.ts';
import type { ReadingStore } from '../store/readings.ts';

/** A site's devices (retired ones too) by id. */
export function deviceServices(
  ctx: { catalogue: Pick<Catalogue, 'serviceTimes'>; readings: Pick<ReadingStore, 'firstTs'> },
  siteId: string,
): Map<string, DeviceService> {
  return new Map(
    ctx.catalogue
      .serviceTimes(siteId)
      .map((d) => [
        d.id,
        { addedAt: d.addedAt, retiredAt: d.retiredAt, firstReadingAt: ctx.readings.firstTs(siteId, d.id) },
      ]),
  );
}
