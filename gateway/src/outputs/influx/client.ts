import type { Config } from '../../config/schema.ts';
import type { WriteClient } from './source.ts';
import { InfluxV1Client } from './v1.ts';
import { InfluxV2Client } from './v2.ts';

/** Where and how to write: the `influx` configuration without the writer's batching. */
export type InfluxSettings = Partial<Omit<Config['influx'], 'batchSize' | 'flushIntervalMs'>>;

/**
 * The write client the `influx` configuration asks for: the InfluxDB 2 write API when a bucket is
 * set (InfluxDB 2.x, 3.x, Cloud), the 1.x /write API when a db is set, none without a url.
 */
export function influxClientFromConfig(c: InfluxSettings): WriteClient | undefined {
  if (!c.url) return undefined;
  if (c.bucket !== undefined)
    return new InfluxV2Client({
      url: c.url,
      org: c.org ?? '',
      bucket: c.bucket,
      ...(c.token !== undefined ? { token: c.token } : {}),
      ...(c.timeoutMs !== undefined ? { timeoutMs: c.timeoutMs } : {}),
    });
  if (c.db !== undefined)
    return new InfluxV1Client({
      url: c.url,
      db: c.db,
      ...(c.token !== undefined ? { token: c.token } : {}),
      ...(c.timeoutMs !== undefined ? { timeoutMs: c.timeoutMs } : {}),
    });
  throw new Error('influx: set bucket (InfluxDB 2/3 API) or db (InfluxDB 1 API)');
}
