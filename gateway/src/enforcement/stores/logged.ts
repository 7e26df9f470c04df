/**
 * Enforcement's logged tables (milestone notices, notices of violation and their steps, stop-work orders
 * and their lifting): each row an entry of the evidence log, appended through the alert engine's unit of
 * work (`port.ts`); the start-up audit checks each row against its entry with these same definitions.
 */
import type { LoggedTables } from '../../alerts/stores/logged.ts';
import {
  siteRecordRecord,
  stopWorkEventRecord,
  stopWorkRecord,
  violationEventRecord,
  violationRecord,
} from '../../ledger/enforcementRecords.ts';
import { noticeRecord } from '../../ledger/records.ts';

export const ENFORCEMENT_LOGGED = {
  notices: {
    columns: ['seq', 'id', 'site_id', 'milestone', 'at', 'filed_at', 'filed_by', 'late', 'site_seq'],
    type: 'notice',
    ref: 'seq',
    at: 'filed_at',
    record: (row) => noticeRecord(row),
  },
  violations: {
    columns: [
      'seq',
      'id',
      'site_id',
      'site_seq',
      'inspection_id',
      'nature',
      'remedy',
      'remedy_due_at',
      'penalties',
      'at',
      'issued_by',
      'appeal_by',
      'parties',
      'law',
      'order_kind',
    ],
    type: 'violation',
    ref: 'seq',
    record: (row) => violationRecord(row),
  },
  violation_events: {
    columns: ['seq', 'violation_id', 'kind', 'at', 'by', 'text', 'photos', 'detail'],
    type: 'violation-event',
    ref: 'seq',
    record: (row) => violationEventRecord(row),
  },
  stop_work: {
    columns: ['seq', 'id', 'site_id', 'site_seq', 'reason', 'violation_ids', 'at', 'issued_by', 'law'],
    type: 'stop-work',
    ref: 'seq',
    record: (row) => stopWorkRecord(row),
  },
  stop_work_events: {
    columns: ['seq', 'order_id', 'kind', 'at', 'by', 'note', 'override', 'detail'],
    type: 'stop-work-event',
    ref: 'seq',
    record: (row) => stopWorkEventRecord(row),
  },
  site_records: {
    columns: ['seq', 'id', 'site_id', 'site_seq', 'kind', 'at', 'recorded_at', 'recorded_by', 'body'],
    type: 'site-record',
    ref: 'seq',
    at: 'recorded_at',
    record: (row) => siteRecordRecord(row),
  },
} as const satisfies LoggedTables;
export type EnforcementTable = keyof typeof ENFORCEMENT_LOGGED;
