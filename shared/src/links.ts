/**
 * How a paged list names its next page: the answer's `Link: <path?…&cursor=…>; rel="next"` header (as
 * GitHub's API does; the gateway writes it in gateway/src/api/paging.ts). Every reader of the lists (the
 * dashboard, the simulator's checker, the tests and soaks) finds the next page with this one function.
 */

/** The path of a `Link` header's rel="next", or undefined when no page follows. */
export function nextPageOf(link: string | null | undefined): string | undefined {
  for (const part of (link ?? '').split(',')) {
    const m = /<([^>]+)>\s*;\s*rel="?next"?/.exec(part);
    if (m) return m[1];
  }
  return undefined;
}
