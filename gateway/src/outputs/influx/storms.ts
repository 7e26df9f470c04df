/**
 * The `storms` measurement: one point per storm event of a rain gauge, at the storm's start, written again
 * (the same series and time, so overwritten) each time the storm grows or closes. Tags site, device;
 * fields inches, tips, thresholdIn (the site's storm threshold) as floats, qualified and closed
 * (booleans), event_id (string). A dashboard draws rain per storm against the site's threshold from it.
 */
import { boolField, escapeKey, floatField, stringField } from './lineProtocol.ts';

export const STORMS_MEASUREMENT = 'storms';

/** What a storm's point is made of (a storm as the API shows it has these and more). */
export interface StormPoint {
  id: string;
  siteId: string;
  deviceId: string;
  /** ISO 8601: the point's time. */
  start: string;
  tips: number;
  inches: number;
  qualified: boolean;
  closed: boolean;
}

export function stormToLine(storm: StormPoint, thresholdIn: number | undefined): string {
  const fields: Array<[string, string | undefined]> = [
    ['inches', floatField(storm.inches)],
    ['tips', floatField(storm.tips)],
    ['thresholdIn', thresholdIn === undefined ? undefined : floatField(thresholdIn)],
    ['qualified', boolField(storm.qualified)],
    ['closed', boolField(storm.closed)],
    ['event_id', stringField(storm.id)],
  ];
  const fs = fields
    .filter((f): f is [string, string] => f[1] !== undefined)
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
  return `${STORMS_MEASUREMENT},device=${escapeKey(storm.deviceId)},site=${escapeKey(storm.siteId)} ${fs} ${Date.parse(storm.start)}`;
}
