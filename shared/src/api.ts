/**
 * The public contract: the zod schema of every shape that leaves the gateway (API answers, the live
 * feed, notifications, the InfluxDB alert point, the fleet state). The gateway builds and validates
 * with them, its OpenAPI document is generated from them, the dashboard reads its types from them.
 */
export * from './admin.ts';
export * from './api/agenda.ts';
export * from './api/alerts.ts';
export * from './api/chartRanges.ts';
export * from './api/charts.ts';
export * from './api/common.ts';
export type * from './api/fieldRows.ts';
export * from './api/findings.ts';
export * from './api/fleet.ts';
export * from './api/measures.ts';
export * from './api/notices.ts';
export * from './api/resolutionCause.ts';
export * from './api/resolutionWords.ts';
export * from './api/siteRecords.ts';
export * from './api/sites.ts';
export * from './api/system.ts';
export * from './api/violations.ts';
export * from './quarantine.ts';
export * from './rules.ts';
