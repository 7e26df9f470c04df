/**
 * Device health and open duties as Prometheus gauges, read at scrape time (docs/integrations.md):
 *
 * - `gateway_device_last_reading_age_seconds{site,device}`: seconds since the gateway last stored a
 *   reading of the device (devices never heard from have no series);
 * - `gateway_device_never_reported{site,device}`: 1 for a registered device the gateway has never stored
 *   a reading of, 0 once it has: what an alert on a device that never reported needs, as the age has no
 *   series for it;
 * - `gateway_device_battery_volts{site,device}` and `gateway_device_rssi_dbm{site,device}`: the newest
 *   `batteryV` and `rssi` the device reported;
 * - `gateway_duties_open{site,rule,overdue}`: open and acknowledged duties, for each site and rule that
 *   has any (`overdue` "true" or "false");
 * - `gateway_device_series_omitted`: devices left out of the per-device gauges by the cap.
 *
 * The cardinality is bounded: labels come from the catalogue (registered devices, configured sites, the
 * rule registry), never from what a device sends; at most `MAX_DEVICE_SERIES` devices get series (in
 * site and device order), and duties give at most sites x rules x 2 series. A retired device's series go
 * at the next scrape.
 */
import type { DeviceRegistry } from './config/registry.ts';
import type { Registry } from './metrics.ts';
import type { DeviceStateRow } from './store/readings.ts';

/** Devices with per-device series at most: four series each. */
export const MAX_DEVICE_SERIES = 10_000;

export interface DeviceMetricsSources {
  registry: Pick<DeviceRegistry, 'all'>;
  deviceState(siteId: string, deviceId: string): DeviceStateRow | undefined;
  /** The unresolved duties (open or acknowledged). */
  openDuties(): ReadonlyArray<{ siteId: string; rule: string; overdue: boolean }>;
  now: () => number;
}

export function deviceMetrics(
  reg: Registry,
  src: DeviceMetricsSources,
  maxDevices = MAX_DEVICE_SERIES,
): void {
  const age = reg.gauge(
    'gateway_device_last_reading_age_seconds',
    'Seconds since the last reading of a device was stored, by site and device',
  );
  const battery = reg.gauge('gateway_device_battery_volts', 'The newest battery voltage a device reported');
  const rssi = reg.gauge(
    'gateway_device_rssi_dbm',
    'The newest signal strength (RSSI, dBm) a device reported',
  );
  const never = reg.gauge(
    'gateway_device_never_reported',
    'A registered device of which no reading was ever stored (1), or one that has reported (0)',
  );
  const omitted = reg.gauge(
    'gateway_device_series_omitted',
    `Registered devices without per-device series (more than ${maxDevices})`,
  );
  const duties = reg.gauge('gateway_duties_open', 'Open and acknowledged duties, by site, rule and overdue');

  // One pass over the devices per scrape: the age collector fills the other two gauges' values too.
  age.collect((setAge) => {
    age.clear();
    battery.clear();
    rssi.clear();
    never.clear();
    const devices = src.registry
      .all()
      .map((d) => ({ site: d.siteId, device: d.deviceId }))
      .sort((a, b) => (a.site === b.site ? cmp(a.device, b.device) : cmp(a.site, b.site)));
    omitted.set(Math.max(0, devices.length - maxDevices));
    const now = src.now();
    for (const labels of devices.slice(0, maxDevices)) {
      const st = src.deviceState(labels.site, labels.device);
      const heard = st !== undefined && st.lastReceivedAt !== null;
      never.set(heard ? 0 : 1, labels);
      if (!st) continue;
      if (st.lastReceivedAt !== null) setAge(Math.max(0, (now - st.lastReceivedAt) / 1000), labels);
      const v = st.latest.batteryV?.value;
      if (typeof v === 'number') battery.set(v, labels);
      const r = st.latest.rssi?.value;
      if (typeof r === 'number') rssi.set(r, labels);
    }
  });
  duties.collect((set) => {
    duties.clear();
    const counts = new Map<string, { site: string; rule: string; overdue: string; n: number }>();
    for (const d of src.openDuties()) {
      const key = `${d.siteId}\u0000${d.rule}\u0000${d.overdue}`;
      const c = counts.get(key);
      if (c) c.n++;
      else counts.set(key, { site: d.siteId, rule: d.rule, overdue: String(d.overdue), n: 1 });
    }
    for (const { n, ...labels } of counts.values()) set(n, labels);
  });
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
