/**
 * `device-clock`: a device whose clock runs ahead of the gateway's has its readings kept in quarantine,
 * out of the rules; its site's people are told at once. The product's own rule, one evaluator per device.
 * Its alerts and edge cases: README.md in this folder.
 */
import { aheadText } from '../../../../shared/src/quarantine.ts';
import { alertKey, openAlert, resolveAlert } from '../effects.ts';
import { type DeviceStateHead, deviceState } from '../state.ts';
import type { Effect, Evaluator, RuleInput } from '../types.ts';
import { deviceLabel, iso } from '../util.ts';

export const RULE = 'device-clock' as const;

export interface ClockState extends DeviceStateHead {
  open: { key: string; since: number; aheadMs: number } | null;
}

const mine = (s: ClockState, i: { siteId: string; deviceId: string }) =>
  i.siteId === s.siteId && i.deviceId === s.deviceId;

/** "-30 days" / "+2 hours": a correction in words. */
function offsetText(ms: number): string {
  const words = aheadText(Math.abs(ms) / 1000).replace(/ ahead$/, '');
  return ms === 0 ? 'no change' : `${ms < 0 ? 'back' : 'forward'} ${words}`;
}

export const clockEvaluator: Evaluator<ClockState, typeof RULE> = {
  rule: RULE,
  init(ctx, deviceId) {
    return deviceState(RULE, ctx, deviceId, { open: null });
  },
  evaluate(prev, input: RuleInput, ctx) {
    const effects: Effect<typeof RULE>[] = [];
    switch (input.type) {
      case 'clock-ahead': {
        if (!mine(prev, input) || prev.open) return { state: prev, effects };
        const key = alertKey(RULE, prev, input.at);
        const label = deviceLabel(ctx.site, prev.deviceId);
        const ahead = aheadText(input.aheadMs / 1000);
        effects.push(
          openAlert(RULE, prev, {
            key,
            at: input.at,
            message:
              `Device ${label}: clock ${ahead} of the gateway's. Its readings with that time are kept in ` +
              'quarantine, not used for any duty, until an administrator releases them with a clock correction; ' +
              'set the device clock right.',
            evidence: {
              aheadSeconds: Math.round(input.aheadMs / 1000),
              firstAt: iso(input.at),
              waiting: input.waiting,
            },
          }),
        );
        return { state: { ...prev, open: { key, since: input.at, aheadMs: input.aheadMs } }, effects };
      }
      case 'clock-corrected': {
        if (!mine(prev, input) || !prev.open || input.waiting > 0) return { state: prev, effects };
        effects.push(
          resolveAlert(prev.open.key, input.at, {
            message:
              `Clock correction of ${offsetText(input.offsetMs)} applied by ${input.by}: ` +
              `${input.released} reading${input.released === 1 ? '' : 's'} released to the rules at the corrected time.`,
            evidence: { offsetSeconds: input.offsetMs / 1000, by: input.by, released: input.released },
          }),
        );
        return { state: { ...prev, open: null }, effects };
      }
      case 'alert-closed':
        if (prev.open?.key !== input.key) return { state: prev, effects };
        return { state: { ...prev, open: null }, effects };
      default:
        return { state: prev, effects };
    }
  },
};
