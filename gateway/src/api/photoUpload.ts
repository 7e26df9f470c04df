/**
 * Receiving a photo (POST /api/photos) without holding it in memory or the event loop: an upload is
 * admitted only while its site and its account are under their quotas (`photos.siteQuotaMb`,
 * `photos.accountQuotaMb`) and the data directory keeps `storage.minFreeMb` free with the declared
 * Content-Length written, each counting the uploads under way at their declared size. Then it waits for
 * one of `photos.uploadsAtOnce` places (`photos.uploadsWaiting` may wait; beyond, 503 with Retry-After),
 * and its body is read as it arrives: the type sniffed from its first bytes, hashed (SHA-256) while read,
 * written to a temporary file with asynchronous writes, free space checked again every MB, flushed
 * (fsync) and handed to the store (`PhotoStore.commit`). Every refusal and failure (the client gone,
 * too large, not the declared type, a quota, no space, a disk error) removes the temporary file.
 */
import { createHash } from 'node:crypto';
import { open, rm, statfs } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { PHOTO_MAX_BYTES } from '../../../shared/src/api/findings.ts';
import type { Config } from '../config/schema.ts';
import type { Counter, Registry } from '../metrics.ts';
import { PHOTO_SNIFF_BYTES, type PhotoStore, type PhotoType, photoTypeOf } from '../store/photos.ts';
import { ApiError } from './errors.ts';

const MB = 1024 * 1024;
const mb = (n: number) => `${Math.round((n / MB) * 10) / 10} MB`;
/** Free space is measured again each time this much more is written. */
const RECHECK_BYTES = MB;
/** Writes gathered into one of at most this size. */
const WRITE_BYTES = 256 * 1024;
/** An upload that sends nothing for this long is ended (its place freed, its file removed). */
const IDLE_MS = 30_000;
const RETRY_AFTER_SEC = 5;

/** Words for each type, as refusals name them. */
export const TYPE_WORDS: Record<PhotoType, string> = {
  'image/jpeg': 'a JPEG photo',
  'image/png': 'a PNG image',
  'image/webp': 'a WebP image',
};
const MAX_MB = PHOTO_MAX_BYTES / MB;

/** A refusal, with the reason it is counted under in gateway_photos_refused_total. */
export class PhotoRefused extends ApiError {
  constructor(
    readonly reason: string,
    code: ConstructorParameters<typeof ApiError>[0],
    message: string,
    retryAfterSec?: number,
  ) {
    super(code, message, retryAfterSec);
  }
}

export const tooLarge = () =>
  new PhotoRefused(
    'too_large',
    'TOO_LARGE',
    `The photo is larger than ${MAX_MB} MB: send a smaller one (a lower resolution).`,
  );

export interface Upload {
  siteId: string;
  siteName: string;
  account: string;
  by: string;
  /** What the request declares (Content-Length), or undefined when it does not say. */
  declared: number | undefined;
  type: PhotoType;
}

export class PhotoIntake {
  private running = 0;
  private readonly waiting: Array<() => void> = [];
  /** Bytes reserved by uploads admitted and not finished, by site and by account, and in all. */
  private readonly bySite = new Map<string, number>();
  private readonly byAccount = new Map<string, number>();
  private reservedAll = 0;
  private readonly aborted: Counter;

  constructor(
    private readonly o: {
      photos: Config['photos'];
      /** The data directory, whose free space is measured. */
      dataDir: string;
      minFreeBytes: number;
      store: Pick<PhotoStore, 'tempPath' | 'commit' | 'usage'>;
      now: () => number;
      metrics: Registry;
    },
  ) {
    this.aborted = o.metrics.counter(
      'gateway_photos_aborted_total',
      'Photo uploads ended before they were stored: the client went away or stopped sending',
    );
    o.metrics
      .gauge('gateway_photo_uploads', 'Photo uploads being received and waiting now')
      .collect((set) => {
        set(this.running, { state: 'receiving' });
        set(this.waiting.length, { state: 'waiting' });
      });
  }

  /**
   * Receives an upload: admitted (quotas, free space, a place), read, stored. Throws PhotoRefused with
   * words for each refusal.
   */
  async receive(raw: IncomingMessage, u: Upload) {
    const reserve = Math.min(u.declared ?? PHOTO_MAX_BYTES, PHOTO_MAX_BYTES);
    const free = await this.freeBytes();
    this.admit(u, reserve, free);
    const release = this.reserve(u, reserve);
    try {
      await this.turn();
      try {
        return await this.read(raw, u);
      } finally {
        this.leave();
      }
    } finally {
      release();
    }
  }

  private async freeBytes(): Promise<number> {
    const st = await statfs(this.o.dataDir);
    return Number(st.bavail) * Number(st.bsize);
  }

  /** Refuses, in words, an upload over a quota or one that would take the disk below its minimum. */
  private admit(u: Upload, bytes: number, free: number): void {
    const { siteQuotaMb, accountQuotaMb } = this.o.photos;
    const used = this.o.store.usage(u.siteId, u.account);
    const site = used.site + (this.bySite.get(u.siteId) ?? 0) + bytes;
    if (site > siteQuotaMb * MB)
      throw new PhotoRefused(
        'quota_site',
        'PHOTO_QUOTA',
        `${u.siteName} has ${mb(used.site)} of photos stored, and its limit is ${siteQuotaMb} MB: this photo cannot be kept. Photos no record cites are removed ${this.days()} after they were sent; the gateway's administrator can raise the limit.`,
      );
    const account = used.account + (this.byAccount.get(u.account) ?? 0) + bytes;
    if (account > accountQuotaMb * MB)
      throw new PhotoRefused(
        'quota_account',
        'PHOTO_QUOTA',
        `You have ${mb(used.account)} of photos stored, and the limit for one account is ${accountQuotaMb} MB: this photo cannot be kept. Photos no record cites are removed ${this.days()} after they were sent; the gateway's administrator can raise the limit.`,
      );
    if (free - this.reservedAll - bytes < this.o.minFreeBytes) throw this.noSpace(free - this.reservedAll);
  }

  private days(): string {
    const d = this.o.photos.uncitedRetentionDays;
    return d === 1 ? '1 day' : `${d} days`;
  }

  private noSpace(free: number): PhotoRefused {
    return new PhotoRefused(
      'no_space',
      'PHOTO_NO_SPACE',
      `The gateway's disk is nearly full (${mb(Math.max(0, free))} free; it keeps ${mb(this.o.minFreeBytes)} free for its records): the photo cannot be kept now. Try again later, and tell whoever runs the gateway.`,
    );
  }

  private reserve(u: Upload, bytes: number): () => void {
    const add = (m: Map<string, number>, k: string, n: number) => {
      const v = (m.get(k) ?? 0) + n;
      if (v === 0) m.delete(k);
      else m.set(k, v);
    };
    add(this.bySite, u.siteId, bytes);
    add(this.byAccount, u.account, bytes);
    this.reservedAll += bytes;
    return () => {
      add(this.bySite, u.siteId, -bytes);
      add(this.byAccount, u.account, -bytes);
      this.reservedAll -= bytes;
    };
  }

  /** Waits for a place to receive; refuses at once when the places and the wait list are taken. */
  private async turn(): Promise<void> {
    const { uploadsAtOnce, uploadsWaiting } = this.o.photos;
    if (this.running < uploadsAtOnce) {
      this.running++;
      return;
    }
    if (this.waiting.length >= uploadsWaiting)
      throw new PhotoRefused(
        'busy',
        'PHOTOS_BUSY',
        `The gateway is receiving as many photos as it can at once: send this one again in ${RETRY_AFTER_SEC} seconds.`,
        RETRY_AFTER_SEC,
      );
    // The place is handed over by the upload that ends (`running` stays the same).
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  private leave(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.running--;
  }

  /** Reads the body into a temporary file, hashing it; stores it; removes the file on any failure. */
  private async read(raw: IncomingMessage, u: Upload) {
    const tmp = await this.o.store.tempPath();
    const fh = await open(tmp, 'wx', 0o640);
    let closed = false;
    const hash = createHash('sha256');
    let size = 0;
    let checkedAt = 0;
    let head: Buffer | undefined = Buffer.alloc(0);
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    const flush = async () => {
      if (pendingBytes === 0) return;
      const bufs = pending;
      pending = [];
      pendingBytes = 0;
      // One write of the pieces as they came (no copy); a short write finishes the rest piece by piece.
      let done = (await fh.writev(bufs)).bytesWritten;
      for (const b of bufs) {
        if (done >= b.length) {
          done -= b.length;
          continue;
        }
        let off = done;
        done = 0;
        while (off < b.length) off += (await fh.write(b, off, b.length - off)).bytesWritten;
      }
    };
    const idle = setTimeout(() => raw.destroy(new Error('the upload stopped sending')), IDLE_MS);
    try {
      try {
        for await (const chunk of raw as AsyncIterable<Buffer>) {
          idle.refresh();
          size += chunk.length;
          if (size > PHOTO_MAX_BYTES) throw tooLarge();
          if (head !== undefined) {
            head = Buffer.concat([head, chunk.subarray(0, PHOTO_SNIFF_BYTES)]);
            if (head.length >= PHOTO_SNIFF_BYTES) {
              this.sniff(head, u.type);
              head = undefined;
            }
          }
          hash.update(chunk);
          pending.push(chunk);
          pendingBytes += chunk.length;
          if (pendingBytes >= WRITE_BYTES) await flush();
          if (size - checkedAt >= RECHECK_BYTES) {
            checkedAt = size;
            const free = await this.freeBytes();
            const rest = Math.max(0, (u.declared ?? PHOTO_MAX_BYTES) - size);
            if (free - rest < this.o.minFreeBytes) throw this.noSpace(free);
          }
        }
      } catch (e) {
        if (e instanceof ApiError) throw e;
        // The client went away (or stopped sending): nobody is there to answer.
        this.aborted.inc();
        throw new PhotoRefused('aborted', 'BAD_REQUEST', 'The photo was not received whole: send it again.');
      } finally {
        clearTimeout(idle);
      }
      if (!raw.complete || (u.declared !== undefined && size !== u.declared)) {
        this.aborted.inc();
        throw new PhotoRefused('aborted', 'BAD_REQUEST', 'The photo was not received whole: send it again.');
      }
      if (size === 0)
        throw new PhotoRefused('empty', 'BAD_REQUEST', 'Send the photo itself as the body of the request.');
      if (head !== undefined) this.sniff(head, u.type);
      await flush();
      await fh.sync();
      await fh.close();
      closed = true;
      return await this.o.store.commit(
        tmp,
        { sha256: hash.digest('hex'), bytes: size, type: u.type },
        { account: u.account, by: u.by, siteId: u.siteId },
        this.o.now,
      );
    } catch (e) {
      // The error that ended the upload is the one answered; closing the file can only add to it.
      if (!closed) await fh.close().catch((err: Error) => void err);
      await rm(tmp, { force: true });
      throw e;
    }
  }

  /** Refuses bytes that are not the image type they are declared as. */
  private sniff(head: Buffer, type: PhotoType): void {
    const actual = photoTypeOf(head);
    if (actual === type) return;
    throw new PhotoRefused(
      'mismatch',
      'PHOTO_MISMATCH',
      actual
        ? `The file is declared as ${TYPE_WORDS[type]} but it is ${TYPE_WORDS[actual]}: send it again as what it is.`
        : `The file is declared as ${TYPE_WORDS[type]} but it is not an image: send a JPEG, PNG or WebP photo.`,
    );
  }
}
