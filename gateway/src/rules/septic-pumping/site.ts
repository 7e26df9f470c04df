/**
 * The pumping duty is the owner's whatever sensors the tank has (law 000, appendix VII): the rule is bound
 * once to every septic and alternative-system site as well as to each tank device (`index.ts`). While no
 * device of the site keeps the duty (no septic-tank or septic-panel), the site's own binding asks for the
 * last pump-out and runs the 2- and 3-year clock, one duty per site. Once a tank device is added it keeps
 * the duty: the site's open duties are handed over (closed as superseded at their own start) and the site's
 * binding only records the pump-outs, so it resumes from them if the device is retired.
 */
import { supersededAlert } from '../effects.ts';
import type { Effect, RuleContext } from '../types.ts';
import { deviceLabel, formatLocal, iso } from '../util.ts';
import type { Params } from './params.ts';

const RULE = 'septic-pumping' as const;

/** The site kinds with a septic tank: the duty applies to each, with or without a tank device. */
export const TANK_SITE_KINDS: readonly string[] = ['alternative-system', 'septic'];
/** The device kinds that report a tank's level; the first septic-tank (else septic-panel) keeps the time duty. */
export const TANK_DEVICE_KINDS: readonly string[] = ['septic-tank', 'septic-panel'];

/** The device that keeps the site's time duty (the first septic-tank, else the first septic-panel), or none. */
export function primaryTank(ctx: RuleContext<Params>): string | undefined {
  const tanks = ctx.site.devices.filter((d) => d.kind === 'septic-tank');
  const pool = tanks.length ? tanks : ctx.site.devices.filter((d) => d.kind === 'septic-panel');
  return pool[0]?.id;
}

/** The tank in words: "tank Front tank (t1)" for a device, "the septic tank at Pine Road (pine)" for a site. */
export function tankWords(ctx: RuleContext<Params>, deviceId: string | undefined): string {
  if (deviceId !== undefined) return `tank ${deviceLabel(ctx.site, deviceId)}`;
  const s = ctx.site;
  return `the septic tank at ${s.name ? `${s.name} (${s.id})` : s.id}`;
}

/** A sentence's first word. */
export const capital = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

interface SiteDuties {
  unknown?: { key: string; at: number } | null;
  time: { key: string; at: number; basis: number } | null;
  lastPumpedSeen: number | null;
  handovers?: number;
}

/**
 * The site's open duties handed over to the tank device `to` (the state is the caller's copy): each
 * closed as superseded at its own start, with the last pump-out the site knew of, so the clerk can give
 * it to the tank.
 */
export function handOver(
  state: SiteDuties,
  to: string,
  ctx: RuleContext<Params>,
  effects: Effect<typeof RULE>[],
) {
  const tank = tankWords(ctx, to);
  const known = state.lastPumpedSeen;
  const since =
    known === null
      ? 'No pump-out was on record.'
      : `The last pump-out on record here was ${formatLocal(known, ctx.timezone)}: give it as the site's last pump-out if the tank does not know it.`;
  const evidence = { handedTo: to, lastPumpedAt: known === null ? null : iso(known) };
  for (const open of [state.unknown, state.time])
    if (open)
      effects.push(
        supersededAlert(open.key, open.at, {
          message: `Handed over: ${tank} now keeps the pumping duty of this site. ${since}`,
          evidence,
        }),
      );
  state.unknown = null;
  state.time = null;
  state.handovers = (state.handovers ?? 0) + 1;
}
