/**
 * The one storage schema. Every table's DDL lives in this folder, one file per version; the store's
 * version is SQLite's `PRAGMA user_version`. At start the migrations after the stored version run in
 * order, all in one transaction with the new version, so a store is either fully migrated or left as
 * it was. A store written by a newer release (a higher version) is refused rather than guessed at.
 *
 * To change the schema: add `vN.ts` exporting a function that takes the store from version N-1 to N
 * (forward only; never edit an earlier version), and append it to MIGRATIONS.
 */
import type { Db } from '../types.ts';

import { applyGuards } from './guards.ts';
import { v1 } from './v1.ts';
import { v2 } from './v2.ts';
import { v3 } from './v3.ts';
import { v4 } from './v4.ts';
import { v5 } from './v5.ts';
import { v6 } from './v6.ts';
import { v7 } from './v7.ts';
import { v8 } from './v8.ts';
import { v9 } from './v9.ts';
import { v10 } from './v10.ts';
import { v11 } from './v11.ts';
import { v12 } from './v12.ts';
import { v13 } from './v13.ts';
import { v14 } from './v14.ts';
import { v15 } from './v15.ts';
import { v16 } from './v16.ts';
import { v17 } from './v17.ts';
import { v18 } from './v18.ts';
import { v19 } from './v19.ts';

export interface Migration {
  version: number;
  description: string;
  up(db: Db): void;
}

export const MIGRATIONS: readonly Migration[] = [
  { version: 1, description: 'the tables of release 0.1.0', up: v1 },
  { version: 2, description: 'rejections stored sampled, with the count of those not stored', up: v2 },
  { version: 3, description: 'the evidence log', up: v3 },
  { version: 4, description: 'people, and the sites and devices managed live', up: v4 },
  { version: 5, description: 'the quarantine: messages kept until they can be used', up: v5 },
  {
    version: 6,
    description: "each alert's history and each site's inspections numbered in their log entries",
    up: v6,
  },
  { version: 7, description: 'the per-table hash chains verified once and ended: the log alone', up: v7 },
  { version: 8, description: 'milestone notices, each an entry of the evidence log', up: v8 },
  {
    version: 9,
    description: "photos stored by their hash; inspections' findings and the browser's id",
    up: v9,
  },
  {
    version: 10,
    description: 'notices of violation, their appeals, corrections and approvals, and stop-work orders',
    up: v10,
  },
  { version: 11, description: 'device logins verified by a keyed hash after their first check', up: v11 },
  {
    version: 12,
    description: "photos' uploads by site and account (quotas); photos never cited may be removed",
    up: v12,
  },
  { version: 13, description: "the lists' pages read by index, newest first", up: v13 },
  {
    version: 14,
    description: "inspections' deficiencies to remedy, deficiencies remedied, and a pump-out's hauler",
    up: v14,
  },
  {
    version: 15,
    description: 'notices and orders name their law; their steps carry service and hearing details',
    up: v15,
  },
  {
    version: 16,
    description: "the developer's records: certifications, the SWPPP on site, milestones, acceptance",
    up: v16,
  },
  {
    version: 17,
    description: "inspections' side (developer's or town's) and the practices they covered",
    up: v17,
  },
  { version: 18, description: 'what closed an alert: the cause of its resolution', up: v18 },
  { version: 19, description: "inspections' signatures", up: v19 },
];

/** The last migration's version (versions are in order; a branch may leave a number to another). */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

export class SchemaError extends Error {
  override name = 'SchemaError';
}

/**
 * Brings the store to SCHEMA_VERSION and re-applies its guards. Returns the version it found and the one
 * it left.
 */
export function migrate(db: Db): { from: number; to: number } {
  const from = db.pragma('user_version', { simple: true }) as number;
  if (from > SCHEMA_VERSION)
    throw new SchemaError(
      `the store is at schema version ${from}, newer than this release's ${SCHEMA_VERSION}: run a newer gateway`,
    );
  db.transaction(() => {
    for (const m of MIGRATIONS) if (m.version > from) m.up(db);
    if (from !== SCHEMA_VERSION) db.pragma(`user_version = ${SCHEMA_VERSION}`);
    applyGuards(db);
  })();
  return { from, to: SCHEMA_VERSION };
}
