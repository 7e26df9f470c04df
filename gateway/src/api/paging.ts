/**
 * Lists answer one page at a time, newest first. A page is at most PAGE_MAX items (PAGE_DEFAULT unless
 * `limit` asks for fewer or more); when more follow, the answer's `Link` header names the next page
 * (`<…?cursor=…>; rel="next"`, as GitHub's API does) and its body keeps the list's shape. The cursor is
 * opaque: the base64url of the last item's keys (its time and id), checked when it comes back; a cursor
 * that is not one a list gave is refused in words (BAD_CURSOR). The filters of the first page (site,
 * status, from/to) go on in the link, so every page is of the same list.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { PAGE_DEFAULT, PAGE_MAX } from '../../../shared/src/api/requests.ts';
import { MAX } from '../../../shared/src/bounds.ts';
import type { Page } from '../store/page.ts';
import { ApiError } from './errors.ts';

const cursorKeys = z.tuple([
  z.number().int().safe(),
  z.union([z.string().min(1).max(MAX.id), z.number().int().safe()]),
]);

/** The cursor of a row's keys. */
export function encodeCursor(keys: readonly [number, string | number]): string {
  return Buffer.from(JSON.stringify(keys)).toString('base64url');
}

function decodeCursor(cursor: string): readonly [number, string | number] {
  const refuse = () => new ApiError('BAD_CURSOR', undefined, undefined, 'cursor');
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw refuse();
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    // Not JSON: refused as any other cursor the list did not give.
    throw refuse();
  }
  const keys = cursorKeys.safeParse(value);
  if (!keys.success) throw refuse();
  return keys.data;
}

/** The page a query asks for (`fallback` is the list's own default size, when it had one). */
export function pageOf(
  q: { cursor?: string | undefined; limit?: number | undefined },
  fallback = PAGE_DEFAULT,
): Page {
  return {
    limit: Math.min(q.limit ?? fallback, PAGE_MAX),
    ...(q.cursor !== undefined ? { after: decodeCursor(q.cursor) } : {}),
  };
}

/**
 * The page's items (at most `page.limit` of the `rows`, read with one more) after `keep` (the caller's
 * sites), and the Link header to the next page when there is one. The cursor is the last row read, kept
 * or not, so a page of another's site does not stop the list.
 */
export function sendPage<T>(
  req: FastifyRequest,
  reply: FastifyReply,
  rows: T[],
  page: Page,
  keys: (row: T) => readonly [number, string | number],
  keep: (row: T) => boolean = () => true,
): T[] {
  const more = rows.length > page.limit;
  const items = more ? rows.slice(0, page.limit) : rows;
  if (more && items.length > 0) {
    const url = new URL(req.url, 'http://gateway');
    url.searchParams.set('cursor', encodeCursor(keys(items[items.length - 1]!)));
    reply.header('link', `<${url.pathname}${url.search}>; rel="next"`);
  }
  return items.filter(keep);
}

/** The `Link` header, documented on a paged list's answer. */
export const LINK_HEADER = {
  Link: {
    type: 'string',
    description:
      'When more items follow: `<path?…&cursor=…>; rel="next"`, the next page with the same filters.',
  },
};
