/** The store's connection type, on its own so that modules below `db.ts` (the schema) can name it. */
import type Database from 'better-sqlite3';

export type Db = Database.Database;
