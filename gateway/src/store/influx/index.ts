import { InfluxV1Client } from './v1.ts';
import { InfluxV2Client } from './v2.ts';
import type { WriteClient } from './writer.ts';

export * from './errors.ts';
export * from './lineProtocol.ts';
export { InfluxV1Client, type InfluxV1Options } from './v1.ts';
export { InfluxV2Client, type InfluxV2Options, mapV2Error } from './v2.ts';
export { InfluxWriter, type InfluxWriterOptions, type WriteClient } from './writer.ts';

export interface InfluxSettings {
  url?: string;
  token?: string;
  org?: string;
  bucket?: string;
  db?: string;
  timeoutMs?: number;
}

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
