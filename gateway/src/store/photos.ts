/**
 * Photos of inspections, stored content-addressed: the file `<dataDir>/photos/<aa>/<sha256>` (its first
 * two hex digits name its folder) holds the bytes, and a `photos` row (schema version 9) its type, size,
 * and when and by whom it was stored. A file is written to a temporary name, flushed to disk, renamed into
 * place and its folder flushed, before its row is committed: a row always has its file. The same photo
 * stored again is the same file and the same row. Records cite a photo by its hash; `citingSites` is the
 * one place that knows which records do.
 */
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, renameSync, writeSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { PHOTO_TYPES, PhotoStored } from '../../../shared/src/api/findings.ts';
import type { Db } from './types.ts';

export type PhotoType = (typeof PHOTO_TYPES)[number];

export interface PhotoRow {
  sha256: string;
  type: PhotoType;
  bytes: number;
  stored_at: number;
  stored_by: string;
}

const startsWith = (b: Uint8Array, sig: readonly number[], at = 0) =>
  b.length >= at + sig.length && sig.every((v, i) => b[at + i] === v);

/** The image type its first bytes show (JPEG, PNG or WebP), or undefined for anything else. */
export function photoTypeOf(b: Uint8Array): PhotoType | undefined {
  if (startsWith(b, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (startsWith(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  // "RIFF", the size, "WEBP".
  if (startsWith(b, [0x52, 0x49, 0x46, 0x46]) && startsWith(b, [0x57, 0x45, 0x42, 0x50], 8))
    return 'image/webp';
  return undefined;
}

/**
 * The records that cite photos, each as a query of the sites whose records cite `@sha` (the site's
 * people may see the photo). A new kind of record citing photos adds its query here.
 */
const PHOTO_CITATIONS = [
  // An inspection's findings: cheap text match first, then the findings' photo lists.
  `SELECT i.site_id AS siteId FROM inspections i, json_each(i.findings) f, json_each(f.value, '$.photos') p
     WHERE i.findings != '[]' AND instr(i.findings, @sha) > 0 AND p.value = @sha`,
];

/** Writes a file durably: a temporary name, flushed, renamed, and the folder flushed. */
function writeDurably(dir: string, name: string, bytes: Uint8Array): void {
  mkdirSync(dir, { recursive: true });
  const tmp = join(dir, `.${name}.${randomBytes(6).toString('hex')}.tmp`);
  const fd = openSync(tmp, 'wx', 0o640);
  try {
    let off = 0;
    while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, join(dir, name));
  const dfd = openSync(dir, 'r');
  try {
    fsyncSync(dfd);
  } finally {
    closeSync(dfd);
  }
}

export class PhotoStore {
  private readonly dir: string;
  private readonly stmts;

  constructor(db: Db, dataDir: string) {
    this.dir = join(dataDir, 'photos');
    this.stmts = {
      get: db.prepare<[string], PhotoRow>('SELECT * FROM photos WHERE sha256 = ?'),
      insert: db.prepare<[PhotoRow]>(
        `INSERT OR IGNORE INTO photos (sha256, type, bytes, stored_at, stored_by)
         VALUES (@sha256, @type, @bytes, @stored_at, @stored_by)`,
      ),
      citing: db.prepare<{ sha: string }, { siteId: string }>(
        `SELECT DISTINCT siteId FROM (${PHOTO_CITATIONS.join(' UNION ')})`,
      ),
    };
  }

  private fileOf(sha256: string): { dir: string; path: string } {
    const dir = join(this.dir, sha256.slice(0, 2));
    return { dir, path: join(dir, sha256) };
  }

  /**
   * Stores a photo whose type the caller has checked (`photoTypeOf`), on disk and then in the table, and
   * answers it as stored (the first time's row, when it was stored before) and whether it is new.
   */
  store(
    bytes: Uint8Array,
    type: PhotoType,
    by: string,
    now: number,
  ): { photo: PhotoStored; created: boolean } {
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const { dir, path } = this.fileOf(sha256);
    const known = this.stmts.get.get(sha256);
    if (!known || !existsSync(path)) writeDurably(dir, sha256, bytes);
    if (!known) this.stmts.insert.run({ sha256, type, bytes: bytes.length, stored_at: now, stored_by: by });
    const row = known ?? this.stmts.get.get(sha256)!;
    return { photo: { sha256, bytes: row.bytes, type: row.type }, created: !known };
  }

  get(sha256: string): PhotoRow | undefined {
    return this.stmts.get.get(sha256);
  }

  /** Of these hashes, those of no stored photo. */
  missing(hashes: readonly string[]): string[] {
    return [...new Set(hashes)].filter((h) => !this.stmts.get.get(h));
  }

  /** A stored photo's bytes. */
  read(sha256: string): Promise<Buffer> {
    return readFile(this.fileOf(sha256).path);
  }

  /** The sites whose records cite the photo. */
  citingSites(sha256: string): string[] {
    return this.stmts.citing.all({ sha: sha256 }).map((r) => r.siteId);
  }
}
