/**
 * Photos taken in the field: a large one is made smaller on the phone (at most 2000 px on its long side,
 * as a JPEG) before it is kept and sent, so it fits what the gateway accepts; a small one is kept as it is.
 * They are sent for their site (POST /api/photos?siteId=) before the record that cites them.
 */
import { PHOTO_MAX_BYTES, PHOTO_TYPES } from '../../../shared/src/api/enforcementWords.ts';
import { postBytes } from '../api.js';

/** A photo picked for an inspection or a correction, kept until the gateway stored it. */
export interface QueuedPhoto {
  blob: Blob;
  /** Set once the gateway stored it (POST /api/photos answered with its hash). */
  sha256?: string;
}

/** The long side a photo is brought down to. */
export const PHOTO_MAX_SIDE = 2000;
const JPEG_QUALITY = 0.85;

/** A photo the form cannot read (not an image, or a kind the phone cannot open). */
export class UnreadablePhoto extends Error {}

const accepted = (type: string) => (PHOTO_TYPES as readonly string[]).includes(type);

/**
 * The photo to keep: the file itself when it is small enough and of a kind the gateway takes, otherwise
 * a JPEG of it at most PHOTO_MAX_SIDE px on its long side.
 */
export async function preparePhoto(file: Blob): Promise<Blob> {
  let bitmap: ImageBitmap;
  try {
    bitmap = await createImageBitmap(file);
  } catch (e) {
    throw new UnreadablePhoto(`not a readable image: ${e instanceof Error ? e.message : String(e)}`);
  }
  try {
    const long = Math.max(bitmap.width, bitmap.height);
    if (long <= PHOTO_MAX_SIDE && file.size <= PHOTO_MAX_BYTES && accepted(file.type)) return file;
    const scale = Math.min(1, PHOTO_MAX_SIDE / long);
    const canvas = document.createElement('canvas');
    canvas.width = Math.max(1, Math.round(bitmap.width * scale));
    canvas.height = Math.max(1, Math.round(bitmap.height * scale));
    const ctx = canvas.getContext('2d');
    if (!ctx) throw new UnreadablePhoto('the phone cannot draw the photo');
    ctx.drawImage(bitmap, 0, 0, canvas.width, canvas.height);
    return await new Promise<Blob>((resolve, reject) =>
      canvas.toBlob(
        (b) => (b ? resolve(b) : reject(new UnreadablePhoto('the photo could not be made smaller'))),
        'image/jpeg',
        JPEG_QUALITY,
      ),
    );
  } finally {
    bitmap.close();
  }
}

/** "1.2 MB", "640 KB": a photo's size for people. */
export function formatBytes(n: number): string {
  return n >= 1024 * 1024 ? `${(n / 1024 / 1024).toFixed(1)} MB` : `${Math.max(1, Math.round(n / 1024))} KB`;
}

/**
 * Sends the photos the gateway does not have yet, for the site (charged to its photo quota); each keeps
 * the hash the gateway answered, so a record sent again does not send its photos twice. Whether any was
 * sent now.
 */
export async function uploadPhotos(siteId: string, photos: Iterable<QueuedPhoto>): Promise<boolean> {
  let sent = false;
  for (const p of photos) {
    if (p.sha256) continue;
    p.sha256 = (await postBytes('POST /api/photos', { query: { siteId } }, p.blob)).sha256;
    sent = true;
  }
  return sent;
}
