/**
 * The storm rule's part of a rain gauge's charts: rain in inches (a tip counter's increases at the
 * calibration in force at each reading, or the interval rain as sent), and the site's threshold on the
 * running rain of a storm. The storm bands and the crossings come from the storm records this rule keeps.
 */
import type { RuleCharts } from '../charts.ts';
import type { Params } from './params.ts';

export const stormCharts: RuleCharts<Params> = {
  device(d, site) {
    const calibrations = d.calibrations ?? [];
    const iptAt = (ts: number) => calibrations.find((c) => ts < c.until)?.inchesPerTip ?? d.inchesPerTip;
    const threshold = site.storm.thresholdIn;
    return {
      derive: [
        {
          measure: 'rain',
          from: 'rainTips',
          counter: true,
          value: (tips, ts) => {
            const ipt = iptAt(ts);
            return ipt === undefined ? undefined : tips * ipt;
          },
        },
        { measure: 'rain', from: 'rainIn', value: (inches) => inches },
      ],
      lines: [
        { measure: 'stormRain', value: threshold, label: `Storm threshold ${threshold.toFixed(2)} in` },
      ],
    };
  },
};
