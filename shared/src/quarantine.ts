/**
 * The quarantine's API bodies (GET /api/quarantine, POST /api/quarantine/release), shared by the gateway,
 * which validates with them, and the dashboard. A quarantined message is one the gateway kept but could
 * not use yet: its timestamp was ahead of the gateway's clock, or its device was not registered.
 */
import { z } from 'zod';
import { entityId } from './admin.ts';
import { MAX } from './bounds.ts';

/** Why a message waits in the quarantine (a subset of the rejection reasons). */
export const QUARANTINE_REASONS = ['future_timestamp', 'unregistered_device'] as const;
export type QuarantineReason = (typeof QUARANTINE_REASONS)[number];

/** "30 days ahead", "6 minutes ahead". */
export function aheadText(seconds: number): string {
  const units: Array<[number, string]> = [
    [86_400, 'day'],
    [3600, 'hour'],
    [60, 'minute'],
    [1, 'second'],
  ];
  for (const [n, name] of units)
    if (seconds >= n) {
      const v = Math.round(seconds / n);
      return `${v} ${name}${v === 1 ? '' : 's'} ahead`;
    }
  return 'ahead';
}

/** The longest clock correction a release takes: ten years, either way. */
export const MAX_OFFSET_SECONDS = 10 * 366 * 86_400;

export const quarantineQuery = z.strictObject({
  siteId: z.string().min(1).max(MAX.id).optional(),
  deviceId: z.string().min(1).max(MAX.id).optional(),
  /** `waiting` (default): not released yet; `released`; `all`. */
  status: z.enum(['waiting', 'released', 'all']).default('waiting'),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
});
export type QuarantineQuery = z.infer<typeof quarantineQuery>;

export const quarantineItem = z.object({
  id: z.number(),
  receivedAt: z.string(),
  transport: z.string(),
  topic: z.string(),
  client: z.string(),
  siteId: z.string(),
  deviceId: z.string(),
  reason: z.enum(QUARANTINE_REASONS),
  /** The reason in plain words. */
  why: z.string(),
  /** The time the device stamped, when it stamped one. */
  sourceTs: z.string().nullable(),
  /** How far ahead of the gateway's clock that time was, in seconds. */
  aheadSeconds: z.number().nullable(),
  payload: z.string(),
  status: z.enum(['waiting', 'released']),
  releasedAt: z.string().nullable(),
  releasedBy: z.string().nullable(),
  offsetSeconds: z.number().nullable(),
  /** What became of it: stored, duplicate, or why it was rejected on release. */
  outcome: z.string().nullable(),
  changeId: z.number().nullable(),
});
export type QuarantineItem = z.infer<typeof quarantineItem>;

/** The waiting messages, counted per device (the dashboard's summary and "devices waiting to be added"). */
export const quarantineDevice = z.object({
  siteId: z.string(),
  deviceId: z.string(),
  reason: z.enum(QUARANTINE_REASONS),
  waiting: z.number(),
  firstReceivedAt: z.string(),
  lastReceivedAt: z.string(),
  /** For a clock ahead: the largest lead seen, seconds. */
  maxAheadSeconds: z.number().nullable(),
});
export type QuarantineDevice = z.infer<typeof quarantineDevice>;

export const quarantineList = z.object({
  items: z.array(quarantineItem),
  devices: z.array(quarantineDevice),
});
export type QuarantineList = z.infer<typeof quarantineList>;

export const releaseBody = z.strictObject({
  siteId: entityId,
  deviceId: entityId,
  /** Only these quarantined messages of the device (default: every one waiting with a clock ahead). */
  ids: z.array(z.number().int().positive()).min(1).max(10_000).optional(),
  /**
   * The clock correction, seconds, added to each message's own time: a clock 30 days ahead is released
   * with -2592000.
   */
  offsetSeconds: z.number().int().min(-MAX_OFFSET_SECONDS).max(MAX_OFFSET_SECONDS),
  note: z.string().max(500).optional(),
});
export type ReleaseBody = z.infer<typeof releaseBody>;

export const releaseResponse = z.object({
  released: z.number(),
  stored: z.number(),
  duplicates: z.number(),
  rejected: z.number(),
  /** Still ahead of the gateway's clock after the correction: left waiting. */
  stillAhead: z.number(),
  changeId: z.number().nullable(),
  logIndex: z.number().nullable(),
});
export type ReleaseResponse = z.infer<typeof releaseResponse>;
