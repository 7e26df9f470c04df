/**
 * The septic-pumping duties that are about time (law 000, appendix VII, "every 2-3 years"): the one that
 * asks for the last pump-out while none is on record, and the time alert, which opens at the reminder and
 * is due at the end of the years (`clock.ts`).
 */

import { endOfDayInWords } from '../../../../shared/src/days.ts';
import { alertKey, openAlert, resolveAlert } from '../effects.ts';
import type { SiteStateHead } from '../state.ts';
import type { Effect, RuleContext } from '../types.ts';
import { formatLocal, iso } from '../util.ts';
import type { PumpingClock } from './clock.ts';
import type { Params } from './params.ts';
import { capital } from './site.ts';

const RULE = 'septic-pumping' as const;

/** Opens the duty asking for the last pump-out (the state, the caller's copy, keeps it). */
export function askLastPumpOut(
  state: SiteStateHead & { deviceId?: string; unknown?: { key: string; at: number } | null },
  now: number,
  /** The tank in words (`tankWords`). */
  tank: string,
  ctx: RuleContext<Params>,
): Effect<typeof RULE> {
  const key = alertKey(RULE, state, 'unknown', now);
  state.unknown = { key, at: now };
  return openAlert(RULE, state, {
    key,
    at: now,
    message:
      `When was ${tank} last pumped? No pump-out is on record: record its last pump-out (the date, the ` +
      `hauler and the hauler's DEC permit number), so a reminder comes before the next one is due ` +
      `(every ${ctx.site.septicPumping.maxYears} years at most, law 000, appendix VII).`,
    evidence: { lastPumpedAt: null, askedAt: iso(now), maxYears: ctx.site.septicPumping.maxYears },
  });
}

/** The answer: a pump-out on record. The duty is met when the record became known (`at`). */
export function answered(
  unknown: { key: string },
  at: number,
  pumpedAt: number,
  how: Record<string, unknown>,
  /** The tank in words (`tankWords`). */
  tank: string,
  ctx: RuleContext<Params>,
): Effect<typeof RULE> {
  return resolveAlert(unknown.key, at, {
    message: `${capital(tank)}: last pump-out recorded, ${formatLocal(pumpedAt, ctx.timezone)}.`,
    evidence: { lastPumpedAt: iso(pumpedAt), answered: true, ...how },
  });
}

/** The time alert of the pump-out at `basis`: it opens at the reminder and is due at the end of the years. */
export function timeAlert(
  state: SiteStateHead & { deviceId?: string; time: { key: string } | null },
  basis: number,
  clock: PumpingClock,
  /** The tank in words (`tankWords`). */
  tank: string,
  ctx: RuleContext<Params>,
): Effect<typeof RULE> {
  const sp = ctx.site.septicPumping;
  const tz = ctx.timezone;
  return openAlert(RULE, state, {
    key: state.time!.key,
    at: clock.remindAt,
    dueAt: clock.dueAt,
    message:
      `${capital(tank)} was last pumped ${formatLocal(basis, tz)}: pump it by ${endOfDayInWords(clock.dueAt, tz)}, ` +
      `${sp.maxYears} years after (every 2-3 years, law 000, appendix VII; the hauler must hold a NYS DEC permit).`,
    evidence: {
      lastPumpedAt: iso(basis),
      reminderYears: sp.reminderYears,
      maxYears: sp.maxYears,
      remindAt: iso(clock.remindAt),
      dueAt: iso(clock.dueAt),
      timezone: tz,
    },
  });
}
