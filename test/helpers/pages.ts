import { nextPageOf } from '../../shared/src/links.ts';

/** Every item of a paged list of the API, following each page's `Link: <…>; rel="next"`. */
export async function allPages<T>(
  base: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<T[]> {
  const out: T[] = [];
  let url: string | undefined = `${base}${path}`;
  for (let n = 0; url && n < 10_000; n++) {
    const r: Response = await fetch(url, { headers });
    if (r.status !== 200) throw new Error(`${url}: ${r.status} ${await r.text()}`);
    out.push(...((await r.json()) as T[]));
    const next = nextPageOf(r.headers.get('link'));
    url = next ? `${base}${next}` : undefined;
  }
  return out;
}
