import type { FastifyPluginAsync } from 'fastify';
import { telemetryQuery } from '../../../../shared/src/api/requests.ts';
import { bucketFor } from '../../../../shared/src/api.ts';
import type { StoredReading } from '../../store/readings.ts';
import { mustSee } from '../auth.ts';
import type { ApiContext } from '../context.ts';
import { ApiError } from '../errors.ts';
import { parseWith } from '../query.ts';
import { route } from '../routes.ts';

const DAY = 86_400_000;

function fieldValue(r: StoredReading, field: string): number | undefined {
  if (field.startsWith('alarms.')) {
    const v = r.alarms?.[field.slice(7) as keyof NonNullable<StoredReading['alarms']>];
    return v === undefined ? undefined : v ? 1 : 0;
  }
  return r.values[field as keyof StoredReading['values']];
}

/**
 * Downsampling keeps what each field means: a cumulative tip counter keeps the last value of a bucket,
 * interval rain is summed, everything else is averaged; every bucket has its min, max and last value too.
 * The bucket size is the smallest of the charts' ladder (a minute to a day) that gives at most maxPoints
 * buckets. Points arrive in time order and only the current bucket is held open.
 */
class Buckets {
  readonly out: Array<{ ts: string; value: number; min: number; max: number; last: number; n: number }> = [];
  private cur: { start: number; sum: number; min: number; max: number; n: number; last: number } | undefined;
  constructor(
    private readonly field: string,
    private readonly from: number,
    readonly bucketMs: number,
  ) {}

  add(p: { ts: number; value: number }): void {
    const start = this.from + Math.floor((p.ts - this.from) / this.bucketMs) * this.bucketMs;
    let cur = this.cur;
    if (!cur || cur.start !== start) {
      this.emit();
      cur = { start, sum: 0, min: p.value, max: p.value, n: 0, last: p.value };
      this.cur = cur;
    }
    cur.sum += p.value;
    cur.n++;
    cur.min = Math.min(cur.min, p.value);
    cur.max = Math.max(cur.max, p.value);
    cur.last = p.value;
  }

  finish(): this['out'] {
    this.emit();
    this.cur = undefined;
    return this.out;
  }

  private emit(): void {
    const c = this.cur;
    if (!c) return;
    const value = this.field === 'rainTips' ? c.last : this.field === 'rainIn' ? c.sum : c.sum / c.n;
    this.out.push({
      ts: new Date(c.start).toISOString(),
      value,
      min: c.min,
      max: c.max,
      last: c.last,
      n: c.n,
    });
  }
}

/** GET /api/telemetry: a device's readings in a time range, downsampled when the range is long. */
/** What readings and devices use. */
export type TelemetryServices = Pick<ApiContext, 'auth' | 'catalogue' | 'now' | 'readings' | 'registry'>;

export const telemetryPlugin: FastifyPluginAsync<TelemetryServices> = async (app, ctx) => {
  app.route(
    route(
      'GET /api/telemetry',
      {
        schema: {
          tags: ['telemetry'],
          summary:
            'Readings of a site or device over a time range (from/to: ISO 8601 or epoch ms; default the last day)',
        },
      },
      async (req) => {
        const caller = ctx.auth.readPublic(req);
        const q = parseWith(telemetryQuery, req.query);
        mustSee(caller, q.siteId);
        if (!ctx.catalogue.site(q.siteId)) throw new ApiError('NOT_FOUND', `no site ${q.siteId}`);
        if (q.deviceId && !ctx.registry.lookup(q.siteId, q.deviceId))
          throw new ApiError('NOT_FOUND', `no device ${q.deviceId} at ${q.siteId}`);
        const to = q.to ?? ctx.now();
        const from = q.from ?? to - DAY;
        if (from > to) throw new ApiError('BAD_REQUEST', 'from is after to');
        const base = {
          siteId: q.siteId,
          deviceId: q.deviceId ?? null,
          from: new Date(from).toISOString(),
          to: new Date(to).toISOString(),
        };
        if (!q.field) {
          const rows = ctx.readings.query({
            siteId: q.siteId,
            deviceId: q.deviceId,
            from,
            to,
            limit: q.maxPoints + 1,
          });
          return {
            ...base,
            truncated: rows.length > q.maxPoints,
            readings: rows.slice(0, q.maxPoints).map((r) => ({
              deviceId: r.deviceId,
              ts: new Date(r.ts).toISOString(),
              ...(r.seq !== undefined ? { seq: r.seq } : {}),
              values: r.values,
              ...(r.alarms ? { alarms: r.alarms } : {}),
              // Its entry in the evidence log (GET /api/evidence/inclusion?index= proves it).
              ...(r.logIdx >= 0
                ? { logIndex: r.logIdx, leafHash: Buffer.from(r.hash, 'hex').toString('base64') }
                : {}),
            })),
          };
        }
        const field = q.field;
        // Raw points up to maxPoints; past that, the series is bucketed as it streams from the store.
        const points: Array<{ ts: number; value: number }> = [];
        let buckets: Buckets | undefined;
        for (const r of ctx.readings.iterate({ siteId: q.siteId, deviceId: q.deviceId, from, to })) {
          const v = fieldValue(r, field);
          if (v === undefined) continue;
          const p = { ts: r.ts, value: v };
          if (buckets) buckets.add(p);
          else if (points.length < q.maxPoints) points.push(p);
          else {
            buckets = new Buckets(field, from, bucketFor(to - from + 1, q.maxPoints));
            for (const earlier of points) buckets.add(earlier);
            buckets.add(p);
          }
        }
        if (buckets) return { ...base, field, bucketMs: buckets.bucketMs, points: buckets.finish() };
        return {
          ...base,
          field,
          bucketMs: null,
          points: points.map((p) => ({ ts: new Date(p.ts).toISOString(), value: p.value })),
        };
      },
    ),
  );
};
