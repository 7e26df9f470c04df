/**
 * Photos of inspections and correction reports, stored content-addressed: the file
 * `<dataDir>/photos/<aa>/<sha256>` (its first two hex digits name its folder) holds the bytes, a `photos`
 * row (schema version 9) its type, size, and when and by whom it was first stored, and a `photo_uploads`
 * row (version 12) each upload of it: by which account, for which site, its size and when. An upload
 * is received into a temporary file (`photos/.incoming/`, flushed to disk) by the API
 * (`api/photoUpload.ts`), then `commit` renames it into place and flushes its folder before the rows are
 * committed: a row always has its file. The same photo stored again is the same file and the same row.
 * The store answers whether a photo is stored and who uploaded it; the records that cite photos (by their
 * hash) are their owners' and each owner registers its own query (`PhotoCitation`: the inspections'
 * findings in `alerts/`, the correction reports in `enforcement/`), handed to the store by `main.ts`. The
 * housekeeping removes the photos no record cites once their last upload is older than the retention
 * (`removeUncited`), never a cited one (the schema's guard, `schema/guards.ts`, refuses it too).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, rmSync, unlinkSync } from 'node:fs';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
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

/**
 * A kind of record that cites photos by their hash, registered by the record's owner: the site's people
 * may see a photo its records cite, and a cited photo is never removed.
 */
export interface PhotoCitation {
  /** A query of the sites (`siteId`) whose records cite the photo whose hash is the SQL expression `sha`. */
  sitesCiting(sha: string): string;
  /** A query of every hash (`sha256`) these records cite. */
  hashes: string;
}

/** Who uploads a photo, and for which site. */
export interface PhotoUploader {
  /** The account: a person's user id, or the name of a configured token. */
  account: string;
  /** As records name them ("Name", "Name (token: …)"). */
  by: string;
  siteId: string;
}

const startsWith = (b: Uint8Array, sig: readonly number[], at = 0) =>
  b.length >= at + sig.length && sig.every((v, i) => b[at + i] === v);

/** Bytes `photoTypeOf` needs to tell the types apart. */
export const PHOTO_SNIFF_BYTES = 12;

/** The image type its first bytes show (JPEG, PNG or WebP), or undefined for anything else. */
export function photoTypeOf(b: Uint8Array): PhotoType | undefined {
  if (startsWith(b, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (startsWith(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  // "RIFF", the size, "WEBP".
  if (startsWith(b, [0x52, 0x49, 0x46, 0x46]) && startsWith(b, [0x57, 0x45, 0x42, 0x50], 8))
    return 'image/webp';
  return undefined;
}

/** Flushes a folder, so that a name just made in it survives a power loss. */
async function syncDir(dir: string): Promise<void> {
  const fd = await open(dir, 'r');
  try {
    await fd.sync();
  } finally {
    await fd.close();
  }
}

const INCOMING = '.incoming';
/** A temporary file's name: the old in-place writes (`.<sha>.<rand>.tmp`) and the incoming ones. */
const TEMP_NAME = /^\..*\.tmp$/;

export class PhotoStore {
  readonly dir: string;
  private readonly stmts;
  private readonly removeRows;
  /** Hashes being committed now: the housekeeping leaves them alone. */
  private readonly committing = new Map<string, Promise<unknown>>();

  constructor(
    private readonly db: Db,
    dataDir: string,
    /** The records that cite photos, each registered by its owner. */
    citations: readonly PhotoCitation[],
  ) {
    const union = (queries: string[]) => (queries.length > 0 ? queries.join(' UNION ') : undefined);
    const citing = union(citations.map((c) => c.sitesCiting('@sha')));
    const cited = union(citations.map((c) => c.hashes));
    this.dir = join(dataDir, 'photos');
    this.stmts = {
      get: db.prepare<[string], PhotoRow>('SELECT * FROM photos WHERE sha256 = ?'),
      insert: db.prepare<[PhotoRow]>(
        `INSERT OR IGNORE INTO photos (sha256, type, bytes, stored_at, stored_by)
         VALUES (@sha256, @type, @bytes, @stored_at, @stored_by)`,
      ),
      upload: db.prepare<
        [{ sha256: string; account: string; by: string; siteId: string; bytes: number; at: number }]
      >(
        `INSERT INTO photo_uploads (sha256, account, stored_by, site_id, bytes, stored_at)
         VALUES (@sha256, @account, @by, @siteId, @bytes, @at)
         ON CONFLICT (sha256, account) DO UPDATE SET stored_at = excluded.stored_at`,
      ),
      uploadedBy: db.prepare<[string, string], { one: number }>(
        'SELECT 1 AS one FROM photo_uploads WHERE sha256 = ? AND account = ?',
      ),
      siteBytes: db.prepare<[string], { n: number }>(
        'SELECT COALESCE(SUM(bytes), 0) AS n FROM photo_uploads WHERE site_id = ?',
      ),
      accountBytes: db.prepare<[string], { n: number }>(
        'SELECT COALESCE(SUM(bytes), 0) AS n FROM photo_uploads WHERE account = ?',
      ),
      citing: citing
        ? db.prepare<{ sha: string }, { siteId: string }>(`SELECT DISTINCT siteId FROM (${citing})`)
        : undefined,
      // Photos whose last upload is older than `before` (the cited ones are taken out by the caller).
      stale: db.prepare<{ before: number }, { sha256: string; bytes: number }>(
        `SELECT p.sha256, p.bytes FROM photos p WHERE p.stored_at < @before AND NOT EXISTS
           (SELECT 1 FROM photo_uploads u WHERE u.sha256 = p.sha256 AND u.stored_at >= @before)`,
      ),
      cited: cited ? db.prepare<[], { sha256: string }>(cited) : undefined,
      deleteUploads: db.prepare<[string]>('DELETE FROM photo_uploads WHERE sha256 = ?'),
      deletePhoto: db.prepare<[string]>('DELETE FROM photos WHERE sha256 = ?'),
    };
    this.removeRows = db.transaction((sha: string) => {
      this.stmts.deleteUploads.run(sha);
      this.stmts.deletePhoto.run(sha);
    });
  }

  private fileOf(sha256: string): { dir: string; path: string } {
    const dir = join(this.dir, sha256.slice(0, 2));
    return { dir, path: join(dir, sha256) };
  }

  /** A new temporary file's path for an upload (its folder made). */
  async tempPath(): Promise<string> {
    const dir = join(this.dir, INCOMING);
    await mkdir(dir, { recursive: true });
    return join(dir, `.${randomBytes(8).toString('hex')}.tmp`);
  }

  /**
   * Keeps a received photo: the temporary file `tmp` (its bytes flushed to disk, its hash and type
   * checked by the caller) is renamed into place and its folder flushed, unless the photo is there
   * already (the temporary file is then removed), and then its row and the upload's are committed.
   * Answers the photo as stored (the first time's row, when it was stored before) and whether it is new.
   * Commits of one hash take their turn; on a failure the temporary file is removed.
   */
  async commit(
    tmp: string,
    p: { sha256: string; bytes: number; type: PhotoType },
    who: PhotoUploader,
    now: () => number,
  ): Promise<{ photo: PhotoStored; created: boolean }> {
    const before = this.committing.get(p.sha256) ?? Promise.resolve();
    const run = before.then(
      () => this.commitNow(tmp, p, who, now),
      () => this.commitNow(tmp, p, who, now),
    );
    this.committing.set(p.sha256, run);
    try {
      return await run;
    } finally {
      if (this.committing.get(p.sha256) === run) this.committing.delete(p.sha256);
    }
  }

  private async commitNow(
    tmp: string,
    p: { sha256: string; bytes: number; type: PhotoType },
    who: PhotoUploader,
    now: () => number,
  ): Promise<{ photo: PhotoStored; created: boolean }> {
    const { dir, path } = this.fileOf(p.sha256);
    let placed = false;
    // Commits of one hash take turns and the housekeeping leaves a hash being committed alone, so the
    // row read here is the row at the commit.
    const known = this.stmts.get.get(p.sha256);
    try {
      if (known && existsSync(path)) await rm(tmp, { force: true });
      else {
        const made = await mkdir(dir, { recursive: true });
        await rename(tmp, path);
        placed = true;
        await syncDir(dir);
        if (made !== undefined) await syncDir(dirname(dir));
      }
      const at = now();
      this.db.transaction(() => {
        if (!known) this.stmts.insert.run({ ...p, stored_at: at, stored_by: who.by });
        this.stmts.upload.run({ ...p, account: who.account, by: who.by, siteId: who.siteId, at });
      })();
      const row = known ?? this.stmts.get.get(p.sha256)!;
      return { photo: { sha256: p.sha256, bytes: row.bytes, type: row.type }, created: !known };
    } catch (e) {
      await rm(tmp, { force: true });
      // A file placed for a row that could not be committed is nobody's (commits of a hash take turns).
      if (placed && !this.stmts.get.get(p.sha256)) await rm(path, { force: true });
      throw e;
    }
  }

  get(sha256: string): PhotoRow | undefined {
    return this.stmts.get.get(sha256);
  }

  /** Whether the account uploaded this photo. */
  uploadedBy(sha256: string, account: string): boolean {
    return this.stmts.uploadedBy.get(sha256, account) !== undefined;
  }

  /** Bytes of the photos uploaded for a site, and by an account. */
  usage(siteId: string, account: string): { site: number; account: number } {
    return {
      site: this.stmts.siteBytes.get(siteId)!.n,
      account: this.stmts.accountBytes.get(account)!.n,
    };
  }

  /** A stored photo's bytes. */
  read(sha256: string): Promise<Buffer> {
    return readFile(this.fileOf(sha256).path);
  }

  /** The sites whose records cite the photo. */
  citingSites(sha256: string): string[] {
    return (this.stmts.citing?.all({ sha: sha256 }) ?? []).map((r) => r.siteId);
  }

  /**
   * Removes the photos no record cites whose last upload was before `before`: rows first (the guard
   * refuses a cited one), then the file, in the same turn of the event loop so no commit comes between.
   * Returns how many, and their bytes.
   */
  removeUncited(before: number): { photos: number; bytes: number } {
    const cited = new Set((this.stmts.cited?.all() ?? []).map((r) => r.sha256));
    let photos = 0;
    let bytes = 0;
    for (const stale of this.stmts.stale.all({ before })) {
      const { sha256 } = stale;
      if (cited.has(sha256) || this.committing.has(sha256)) continue;
      this.removeRows(sha256);
      try {
        unlinkSync(this.fileOf(sha256).path);
      } catch (e) {
        if ((e as { code?: string }).code !== 'ENOENT') throw e;
      }
      photos++;
      bytes += stale.bytes;
    }
    return { photos, bytes };
  }

  /** Removes the temporary files a stopped gateway left (at start, before any upload). */
  sweepTemps(): number {
    let n = 0;
    if (!existsSync(this.dir)) return n;
    for (const sub of readdirSync(this.dir)) {
      const dir = join(this.dir, sub);
      if (sub !== INCOMING && !/^[0-9a-f]{2}$/.test(sub)) continue;
      for (const name of readdirSync(dir))
        if (TEMP_NAME.test(name)) {
          rmSync(join(dir, name), { force: true });
          n++;
        }
    }
    return n;
  }
}
