/**
 * Small images for the photo tests: a real 1×1 PNG, a PNG of one colour at any size, and JPEG and WebP
 * bytes with their signatures.
 */
import { crc32, deflateSync } from 'node:zlib';

export const PNG_1X1 = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

/** A PNG of one colour, width x height (a real image the browser decodes). */
export function png(width: number, height: number, rgb: [number, number, number]): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([len, body, crc]);
  };
  const head = Buffer.alloc(13);
  head.writeUInt32BE(width, 0);
  head.writeUInt32BE(height, 4);
  head.set([8, 2, 0, 0, 0], 8);
  const row = Buffer.alloc(1 + width * 3);
  for (let x = 0; x < width; x++) row.set(rgb, 1 + x * 3);
  const pixels = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', head),
    chunk('IDAT', deflateSync(pixels)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** JPEG bytes (start of image, an APP0 marker) followed by `tag`, so each call can make a new photo. */
export function jpegBytes(tag: string): Buffer {
  return Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]), Buffer.from(`JFIF ${tag}`)]);
}

export function webpBytes(tag: string): Buffer {
  const body = Buffer.concat([Buffer.from('WEBPVP8 '), Buffer.from(tag)]);
  const size = Buffer.alloc(4);
  size.writeUInt32LE(body.length);
  return Buffer.concat([Buffer.from('RIFF'), size, body]);
}

/** POST /api/photos?siteId= with raw bytes, for the site named (default maple-ridge, the tests' own). */
export async function postPhoto(
  baseUrl: string,
  bytes: Buffer,
  type: string,
  headers: Record<string, string>,
  siteId = 'maple-ridge',
): Promise<{ status: number; body: Record<string, unknown>; retryAfter: string | null }> {
  const res = await fetch(`${baseUrl}/api/photos?siteId=${encodeURIComponent(siteId)}`, {
    method: 'POST',
    headers: { 'content-type': type, ...headers },
    body: new Uint8Array(bytes),
  });
  const text = await res.text();
  return {
    status: res.status,
    body: (text ? JSON.parse(text) : {}) as Record<string, unknown>,
    retryAfter: res.headers.get('retry-after'),
  };
}
