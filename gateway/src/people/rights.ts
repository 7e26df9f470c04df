/**
 * When rights end. An admin disabling an account or setting its password (a reset) ends every session of
 * it and revokes every personal token of it; a person changing their own password ends their other
 * sessions (the one they changed it in stays, and so do their tokens, each revocable on its own). A
 * token may make another only if the new one ends no later than it does. The API checks the open live
 * feeds again right after each of these (api/plugins/events.ts), and every second for expiries.
 */
import type { Sessions } from './sessions.ts';
import { DEFAULT_TOKEN_DAYS, MAX_TOKEN_DAYS, type Tokens } from './tokens.ts';

const DAY = 86_400_000;

/** What an admin's change of an account ends: call in the transaction that makes the change. */
export function endRightsAfterAdminChange(
  p: { sessions: Sessions; tokens: Tokens },
  userId: string,
  change: { disabled?: boolean | undefined; password?: string | undefined },
  by: string,
): { sessions: number; tokens: number } {
  if (change.disabled !== true && change.password === undefined) return { sessions: 0, tokens: 0 };
  return { sessions: p.sessions.closeAll(userId), tokens: p.tokens.revokeAll(userId, by) };
}

const iso = (t: number) => new Date(t).toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * When a new personal token ends: the one asked for, or DEFAULT_TOKEN_DAYS from now; never more than
 * MAX_TOKEN_DAYS ahead, and never after `makerEndsAt`, the end of the token it is made with (a default
 * is cut to it; an expiry asked for beyond it is refused). A refusal is a sentence for the person.
 */
export function newTokenExpiry(
  requested: number | undefined,
  now: number,
  makerEndsAt: number | undefined,
): { expiresAt: number } | { refused: string } {
  if (requested !== undefined && (requested <= now || requested > now + MAX_TOKEN_DAYS * DAY))
    return {
      refused: `The expiry must be in the future and at most ${MAX_TOKEN_DAYS} days (2 years) from now.`,
    };
  if (requested !== undefined && makerEndsAt !== undefined && requested > makerEndsAt)
    return {
      refused:
        `A token can only make tokens that end no later than it does: the one you used ends at ` +
        `${iso(makerEndsAt)}. Choose an earlier expiry, or sign in with your password to make a longer one.`,
    };
  const expiresAt = requested ?? now + DEFAULT_TOKEN_DAYS * DAY;
  return { expiresAt: makerEndsAt === undefined ? expiresAt : Math.min(expiresAt, makerEndsAt) };
}
