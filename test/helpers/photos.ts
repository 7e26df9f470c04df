/** Small images for the photo tests: a real 1×1 PNG, and JPEG and WebP bytes with their signatures. */
export const PNG_1X1 = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

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
