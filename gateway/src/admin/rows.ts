/**
 * The catalogue's rows and the configuration they stand for: a site row keeps its configuration without
 * its devices and recipients (kept in their own tables), a device row its configuration without its
 * secret (`device_secrets`) and its earlier calibrations (`calibrations`). Reading them back goes through
 * the configuration's schema, so the rules see exactly what a YAML file would have given them.
 */
import type { DeviceConfig, SiteConfig } from '../config/schema.ts';
import { deviceSchema, siteSchema } from '../config/schema.ts';
import type { Db } from '../store/types.ts';

interface SiteRow {
  id: string;
  config: string;
}
interface DeviceRow {
  site_id: string;
  id: string;
  config: string;
  retired_at: number | null;
}
interface RecipientRow {
  site_id: string;
  role: string;
  name: string | null;
  email: string | null;
  webhook: string | null;
}

/** A site's own configuration, as its row keeps it. */
export function siteOwn(site: SiteConfig): Record<string, unknown> {
  const { devices: _d, recipients: _r, ...own } = site;
  return own;
}

/**
 * A site's own configuration as its change records give it: without its history on record and its
 * reasons for figures looser than the law, which are change records of their own (`history.ts`,
 * `overrides.ts`).
 */
export function siteRecord(site: SiteConfig): Record<string, unknown> {
  const { history: _h, lawOverrides: _o, ...own } = siteOwn(site);
  return own;
}

/** A device's own configuration, as its row keeps it. */
export function deviceOwn(device: DeviceConfig): Record<string, unknown> {
  const { passwordHash: _p, calibrations: _c, ...own } = device;
  return own;
}

const dropNull = (o: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null && v !== undefined));

export class CatalogueRows {
  private readonly stmts;

  constructor(db: Db) {
    this.stmts = {
      count: db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM sites'),
      sites: db.prepare<[], SiteRow>('SELECT id, config FROM sites ORDER BY rowid'),
      devices: db.prepare<[], DeviceRow>(
        'SELECT site_id, id, config, retired_at FROM devices ORDER BY rowid',
      ),
      device: db.prepare<[string, string], DeviceRow>('SELECT * FROM devices WHERE site_id = ? AND id = ?'),
      service: db.prepare<[string], { id: string; created_at: number; retired_at: number | null }>(
        'SELECT id, created_at, retired_at FROM devices WHERE site_id = ? ORDER BY rowid',
      ),
      recipients: db.prepare<[], RecipientRow>('SELECT * FROM recipients ORDER BY site_id, pos'),
      secrets: db.prepare<[], { site_id: string; device_id: string; password_hash: string }>(
        'SELECT site_id, device_id, password_hash FROM device_secrets WHERE revoked_at IS NULL ORDER BY id',
      ),
      calibrations: db.prepare<
        [],
        { site_id: string; device_id: string; until: number; inches_per_tip: number }
      >('SELECT * FROM calibrations ORDER BY site_id, device_id, until'),
      insertSite: db.prepare('INSERT INTO sites (id, config, created_at, updated_at) VALUES (?, ?, ?, ?)'),
      updateSite: db.prepare('UPDATE sites SET config = ?, updated_at = ? WHERE id = ?'),
      insertDevice: db.prepare('INSERT INTO devices (site_id, id, config, created_at) VALUES (?, ?, ?, ?)'),
      updateDevice: db.prepare('UPDATE devices SET config = ? WHERE site_id = ? AND id = ?'),
      retireDevice: db.prepare('UPDATE devices SET retired_at = ? WHERE site_id = ? AND id = ?'),
      clearRecipients: db.prepare('DELETE FROM recipients WHERE site_id = ?'),
      insertRecipient: db.prepare(
        'INSERT INTO recipients (site_id, pos, role, name, email, webhook) VALUES (?, ?, ?, ?, ?, ?)',
      ),
      revokeSecrets: db.prepare(
        'UPDATE device_secrets SET revoked_at = ? WHERE site_id = ? AND device_id = ? AND revoked_at IS NULL',
      ),
      insertSecret: db.prepare(
        'INSERT INTO device_secrets (site_id, device_id, password_hash, created_at) VALUES (?, ?, ?, ?)',
      ),
      insertCalibration: db.prepare(
        'INSERT INTO calibrations (site_id, device_id, until, inches_per_tip, change_id) VALUES (?, ?, ?, ?, ?)',
      ),
    };
  }

  empty(): boolean {
    return this.stmts.count.get()!.n === 0;
  }

  /** Every site with its devices in service (retired ones apart), read through the schema. */
  load(): { sites: SiteConfig[]; retired: Map<string, string[]> } {
    const secret = new Map<string, string>();
    for (const s of this.stmts.secrets.all()) secret.set(`${s.site_id}/${s.device_id}`, s.password_hash);
    const cal = new Map<string, Array<{ until: number; inchesPerTip: number }>>();
    for (const c of this.stmts.calibrations.all()) {
      const k = `${c.site_id}/${c.device_id}`;
      cal.set(k, [...(cal.get(k) ?? []), { until: c.until, inchesPerTip: c.inches_per_tip }]);
    }
    const devices = new Map<string, unknown[]>();
    const retired = new Map<string, string[]>();
    for (const d of this.stmts.devices.all()) {
      if (d.retired_at !== null) {
        retired.set(d.site_id, [...(retired.get(d.site_id) ?? []), d.id]);
        continue;
      }
      const k = `${d.site_id}/${d.id}`;
      const h = secret.get(k);
      const c = cal.get(k);
      const own = JSON.parse(d.config) as Record<string, unknown>;
      devices.set(d.site_id, [
        ...(devices.get(d.site_id) ?? []),
        { ...own, ...(h ? { passwordHash: h } : {}), ...(c ? { calibrations: c } : {}) },
      ]);
    }
    const recipients = new Map<string, unknown[]>();
    for (const r of this.stmts.recipients.all()) {
      const { site_id, ...rest } = r;
      recipients.set(site_id, [...(recipients.get(site_id) ?? []), dropNull({ ...rest, pos: undefined })]);
    }
    const sites = this.stmts.sites.all().map((s) =>
      siteSchema.parse({
        ...(JSON.parse(s.config) as object),
        devices: devices.get(s.id) ?? [],
        recipients: recipients.get(s.id) ?? [],
      }),
    );
    return { sites, retired };
  }

  /** The retired devices' MQTT identities: their login names and client ids are never given again. */
  retiredIdentities(): Array<{ siteId: string; id: string; username?: string; clientIds: string[] }> {
    return this.stmts.devices
      .all()
      .filter((d) => d.retired_at !== null)
      .map((d) => {
        const own = JSON.parse(d.config) as { username?: string; clientIds?: string[] };
        return {
          siteId: d.site_id,
          id: d.id,
          ...(own.username ? { username: own.username } : {}),
          clientIds: own.clientIds ?? [],
        };
      });
  }

  deviceRow(siteId: string, deviceId: string): DeviceRow | undefined {
    return this.stmts.device.get(siteId, deviceId);
  }

  /** When each device of a site (retired ones too) was added, and retired. */
  serviceTimes(siteId: string): Array<{ id: string; addedAt: number; retiredAt: number | null }> {
    return this.stmts.service
      .all(siteId)
      .map((r) => ({ id: r.id, addedAt: r.created_at, retiredAt: r.retired_at }));
  }

  /** A site's retired devices as configured when they were retired (their charts up to then). */
  retiredConfigs(siteId: string): DeviceConfig[] {
    return this.stmts.devices
      .all()
      .filter((d) => d.site_id === siteId && d.retired_at !== null)
      .map((d) => deviceSchema.parse(JSON.parse(d.config)));
  }

  insertSite(site: SiteConfig, at: number): void {
    this.stmts.insertSite.run(site.id, JSON.stringify(siteOwn(site)), at, at);
    this.setRecipients(site.id, site.recipients);
  }

  updateSite(site: SiteConfig, at: number): void {
    this.stmts.updateSite.run(JSON.stringify(siteOwn(site)), at, site.id);
  }

  setRecipients(siteId: string, recipients: SiteConfig['recipients']): void {
    this.stmts.clearRecipients.run(siteId);
    recipients.forEach((r, i) => {
      this.stmts.insertRecipient.run(siteId, i, r.role, r.name ?? null, r.email ?? null, r.webhook ?? null);
    });
  }

  insertDevice(siteId: string, device: DeviceConfig, at: number): void {
    this.stmts.insertDevice.run(siteId, device.id, JSON.stringify(deviceOwn(device)), at);
    if (device.passwordHash) this.setSecret(siteId, device.id, device.passwordHash, at);
    for (const c of device.calibrations ?? [])
      this.stmts.insertCalibration.run(siteId, device.id, c.until, c.inchesPerTip, null);
  }

  updateDevice(siteId: string, device: DeviceConfig): void {
    this.stmts.updateDevice.run(JSON.stringify(deviceOwn(device)), siteId, device.id);
  }

  retireDevice(siteId: string, deviceId: string, at: number): void {
    this.stmts.retireDevice.run(at, siteId, deviceId);
    this.stmts.revokeSecrets.run(at, siteId, deviceId);
  }

  /** The device's secrets stop working (it no longer logs in). */
  revokeSecret(siteId: string, deviceId: string, at: number): void {
    this.stmts.revokeSecrets.run(at, siteId, deviceId);
  }

  /** The device's new secret; every earlier one stops working. */
  setSecret(siteId: string, deviceId: string, hash: string, at: number): void {
    this.stmts.revokeSecrets.run(at, siteId, deviceId);
    this.stmts.insertSecret.run(siteId, deviceId, hash, at);
  }

  /** Readings before `until` keep the inches per tip they were counted at. */
  addCalibration(
    siteId: string,
    deviceId: string,
    until: number,
    inchesPerTip: number,
    changeId: number,
  ): void {
    this.stmts.insertCalibration.run(siteId, deviceId, until, inchesPerTip, changeId);
  }
}
