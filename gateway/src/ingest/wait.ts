/** Waiting with an upper bound, for the inputs' stop() and retries. */

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Resolves to true when `p` settles first, false when `ms` passes first. */
export async function within(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((r) => {
    timer = setTimeout(() => r(false), ms);
  });
  try {
    return await Promise.race([p.then(() => true as const), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
