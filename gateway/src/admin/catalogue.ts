/**
 * The live catalogue of sites, devices and recipients. The configuration file seeds it at first start;
 * from then on the store holds it and the API changes it. Every change is validated with the
 * configuration's schema (the rules' parameters included), committed together with its change record
 * and evidence entry, and then told to the listeners (the device registry, the broker, the rules), which
 * pick it up at once.
 */
import { randomBytes } from 'node:crypto';
import { hashPassword } from '../../../shared/src/password.ts';
import {
  collisionMessage,
  configCollisions,
  deviceHolder,
  deviceIdentities,
  deviceKey,
  IdentityIndex,
  userHolder,
} from '../config/identities.ts';
import { formatIssuePath } from '../config/load.ts';
import { type DeviceConfig, deviceSchema, type SiteConfig, siteSchema } from '../config/schema.ts';
import type { SiteCatalogue, SiteChange } from '../config/sites.ts';
import type { Log } from '../pipeline.ts';
import type { Db } from '../store/types.ts';
import { CatalogueError, type Credentials, parse } from './catalogueError.ts';
import type { ChangeLog } from './changes.ts';
import {
  type FieldbusSetup,
  type NativeAdded,
  nativeAdded,
  type ProfileLibrary,
  switchTransport,
  transportProblems,
} from './deviceTransport.ts';
import { historyChanges, mergeHistory } from './history.ts';
import { keepOverrides, overrideChanges, overrideProblem } from './overrides.ts';
import { namedPractices, practicesProblem } from './practices.ts';
import { CatalogueRows, deviceOwn, siteOwn, siteRecord } from './rows.ts';

/** What changed: the listeners rebuild what depends on the site (and drop a device's live session). */
export type { SiteChange as CatalogueEvent } from '../config/sites.ts';

export { CatalogueError, type Credentials } from './catalogueError.ts';

/** A device password: 24 random URL-safe characters, kept only as its scrypt hash. */
const newPassword = () => randomBytes(18).toString('base64url');

export class Catalogue implements SiteCatalogue {
  private readonly rows: CatalogueRows;
  private list: SiteConfig[] = [];
  private byId = new Map<string, SiteConfig>();
  private retired = new Map<string, string[]>();
  private readonly listeners: Array<(e: SiteChange) => void> = [];

  constructor(
    private readonly db: Db,
    private readonly changes: ChangeLog,
    private readonly o: {
      now: () => number;
      log: Log;
      /** The configured MQTT users' names: no device may take one. */
      mqttUsers?: readonly string[];
      /** The gateway's time zone: refusals tell times in a site's, or this one (default UTC). */
      timezone?: string;
      /** The profiles a device may name (default: the library). */
      profiles?: ProfileLibrary;
      /** The Modbus buses and SDI-12 adapters the configuration sets up (default: none). */
      fieldbus?: FieldbusSetup;
    },
  ) {
    this.rows = new CatalogueRows(db);
    this.reload();
    // A store written before identities were checked may hold a collision: said at every start.
    const users = (this.o.mqttUsers ?? []).map((username) => ({ username }));
    for (const c of configCollisions(this.list, users))
      this.o.log.warn({ path: formatIssuePath(c.path) }, c.message);
    // A store written before overrides needed a reason may hold a looser figure without one.
    for (const s of this.list) {
      const problem = overrideProblem(s);
      if (problem) this.o.log.warn({ siteId: s.id }, problem);
    }
  }

  /** At first start (no site in the store), the configuration's sites become the store's. */
  seed(sites: readonly SiteConfig[]): boolean {
    if (!this.rows.empty() || sites.length === 0) return false;
    const at = this.o.now();
    this.db.transaction(() => {
      for (const s of sites.map(keepOverrides)) {
        this.rows.insertSite(s, at);
        for (const d of s.devices) this.rows.insertDevice(s.id, d, at);
        this.changes.record({
          entity: 'site',
          action: 'seed',
          by: 'configuration',
          siteId: s.id,
          new: { ...siteRecord(s), recipients: s.recipients, devices: s.devices.map(deviceOwn) },
        });
        for (const c of historyChanges(s.id, 'configuration', undefined, s.history)) this.changes.record(c);
        for (const c of overrideChanges(s.id, 'configuration', undefined, s)) this.changes.record(c);
      }
    })();
    this.reload();
    this.o.log.info({ sites: sites.length }, 'sites and devices seeded from the configuration');
    return true;
  }

  sites(): readonly SiteConfig[] {
    return this.list;
  }

  site(id: string): SiteConfig | undefined {
    return this.byId.get(id);
  }

  /** A site's retired devices (their history stays). */
  retiredDevices(siteId: string): readonly string[] {
    return this.retired.get(siteId) ?? [];
  }

  /** When each device of a site (retired ones too) was added to it, and retired (null: in service). */
  serviceTimes(siteId: string): Array<{ id: string; addedAt: number; retiredAt: number | null }> {
    return this.rows.serviceTimes(siteId);
  }

  /** A site's retired devices as configured when they were retired. */
  retiredConfigs(siteId: string): DeviceConfig[] {
    return this.rows.retiredConfigs(siteId);
  }

  onChange(listener: (e: SiteChange) => void): void {
    this.listeners.push(listener);
  }

  /** Adds a site; its history on record (if any) is a change record per event. */
  addSite(input: Record<string, unknown>, by: string): SiteConfig {
    const site = keepOverrides(parse(siteSchema, { ...input, devices: [] }));
    if (this.byId.has(site.id)) throw new CatalogueError('CONFLICT', `site ${site.id} exists`);
    this.mustExplainFigures(site);
    const history = this.history(undefined, site.history);
    const made = { ...site, history };
    return this.commit({ siteId: site.id, what: 'site', by }, () => {
      this.rows.insertSite(made, this.o.now());
      this.changes.record({
        entity: 'site',
        action: 'create',
        by,
        siteId: site.id,
        new: { ...siteRecord(made), recipients: site.recipients },
      });
      for (const c of historyChanges(site.id, by, undefined, history)) this.changes.record(c);
      for (const c of overrideChanges(site.id, by, undefined, made)) this.changes.record(c);
    }).site(site.id)!;
  }

  /** Edits a site; `history` adds to its history on record (an event given replaces that event). */
  editSite(id: string, patch: Record<string, unknown>, by: string): SiteConfig {
    const cur = this.mustSite(id);
    const { recipients, history: given, lawOverrides: reasons, ...own } = patch;
    // Reasons given add to those on record; only those of figures looser than the law are kept.
    const next = keepOverrides(
      parse(siteSchema, {
        ...siteOwn(cur),
        ...own,
        id,
        history: given === undefined ? cur.history : { ...cur.history, ...(given as object) },
        lawOverrides: { ...cur.lawOverrides, ...(reasons as object | undefined) },
        recipients: recipients ?? cur.recipients,
      }),
    );
    this.mustExplainFigures(next);
    if (own.practices !== undefined) this.mustKeepPractices(cur, next);
    const overrides = overrideChanges(id, by, cur, next);
    const ownChanged = Object.keys(own).length > 0;
    next.history = this.history(cur.history, given === undefined ? undefined : next.history);
    const recorded = historyChanges(id, by, cur.history, next.history);
    return this.commit({ siteId: id, what: 'site', by }, () => {
      const at = this.o.now();
      if (ownChanged || overrides.length > 0 || recorded.length > 0) this.rows.updateSite(next, at);
      if (ownChanged)
        this.changes.record({
          entity: 'site',
          action: 'update',
          by,
          siteId: id,
          old: siteRecord(cur),
          new: siteRecord(next),
        });
      for (const c of overrides) this.changes.record(c);
      for (const c of recorded) this.changes.record(c);
      if (recipients !== undefined) {
        this.rows.setRecipients(id, next.recipients);
        this.changes.record({
          entity: 'recipients',
          action: 'update',
          by,
          siteId: id,
          old: cur.recipients,
          new: next.recipients,
        });
      }
    }).site(id)!;
  }

  /**
   * Adds a device. One of the gateway's own JSON gets a new secret: its credentials are returned (shown
   * once). One of a native transport has none (it does not log in): how it is heard is returned.
   */
  addDevice(siteId: string, input: Record<string, unknown>, by: string): Credentials | NativeAdded {
    const site = this.mustSite(siteId);
    const native = input.transport !== undefined && input.transport !== 'json';
    const password = native ? undefined : newPassword();
    const device = parse(deviceSchema, {
      ...switchTransport({}, input),
      ...(password !== undefined ? { passwordHash: hashPassword(password) } : {}),
    });
    if (site.devices.some((d) => d.id === device.id) || this.rows.deviceRow(siteId, device.id))
      throw new CatalogueError(
        'CONFLICT',
        `device ${siteId}/${device.id} exists (or existed: ids are not reused)`,
      );
    parse(siteSchema, { ...site, devices: [...site.devices, device] });
    this.mustOwnIdentities(siteId, device);
    this.mustConnect(siteId, device);
    this.commit({ siteId, deviceId: device.id, what: 'device', by }, () => {
      this.rows.insertDevice(siteId, device, this.o.now());
      this.changes.record({
        entity: 'device',
        action: 'create',
        by,
        siteId,
        deviceId: device.id,
        new: deviceOwn(device),
      });
      if (password !== undefined)
        this.changes.record({ entity: 'secret', action: 'create', by, siteId, deviceId: device.id });
    });
    if (password === undefined) return nativeAdded(siteId, device, this.o.profiles);
    const username = device.username ?? `${siteId}/${device.id}`;
    return { username, clientId: `${siteId}/${device.id}`, password };
  }

  /**
   * Edits a device. A new `inchesPerTip` applies from `effectiveAt` on (default now): readings before it
   * keep the calibration they were counted at. `retired: true` retires it.
   */
  editDevice(
    siteId: string,
    deviceId: string,
    patch: Record<string, unknown> & { effectiveAt?: number; retired?: boolean },
    by: string,
  ): DeviceConfig | undefined {
    const site = this.mustSite(siteId);
    const cur = this.mustDevice(site, deviceId);
    const { effectiveAt, retired, ...own } = patch;
    const now = this.o.now();
    if (retired) {
      this.commit({ siteId, deviceId, what: 'retired', by }, () => {
        this.rows.retireDevice(siteId, deviceId, now);
        this.changes.record({
          entity: 'device',
          action: 'retire',
          by,
          siteId,
          deviceId,
          old: deviceOwn(cur),
        });
      });
      return undefined;
    }
    const next = parse(deviceSchema, { ...switchTransport(cur, own), id: deviceId, kind: cur.kind });
    parse(siteSchema, { ...site, devices: site.devices.map((d) => (d.id === deviceId ? next : d)) });
    this.mustOwnIdentities(siteId, next);
    this.mustConnect(siteId, next);
    const recalibrated = next.inchesPerTip !== cur.inchesPerTip && cur.inchesPerTip !== undefined;
    // A device that now connects through LoRaWAN, Modbus RTU or SDI-12 no longer logs in: its secret ends.
    const unsecret = cur.passwordHash !== undefined && (next.transport ?? 'json') !== 'json';
    const from = effectiveAt ?? now;
    const lastUntil = cur.calibrations?.at(-1)?.until ?? Number.NEGATIVE_INFINITY;
    if (recalibrated && from <= lastUntil)
      throw new CatalogueError('BAD_REQUEST', 'effectiveAt: must be later than the last calibration change');
    this.commit({ siteId, deviceId, what: unsecret ? 'secret' : 'device', by }, () => {
      this.rows.updateDevice(siteId, next);
      if (unsecret) {
        this.rows.revokeSecret(siteId, deviceId, now);
        this.changes.record({ entity: 'secret', action: 'revoke', by, siteId, deviceId });
      }
      const { inchesPerTip: oldIpt, ...oldRest } = deviceOwn(cur);
      const { inchesPerTip: newIpt, ...newRest } = deviceOwn(next);
      if (recalibrated) {
        const c = this.changes.record({
          entity: 'device',
          action: 'calibrate',
          by,
          siteId,
          deviceId,
          old: { inchesPerTip: oldIpt },
          new: { inchesPerTip: newIpt },
          effectiveAt: from,
        });
        this.rows.addCalibration(siteId, deviceId, from, cur.inchesPerTip!, c.id);
      }
      if (JSON.stringify(oldRest) !== JSON.stringify(newRest))
        this.changes.record({
          entity: 'device',
          action: 'update',
          by,
          siteId,
          deviceId,
          old: oldRest,
          new: newRest,
        });
    });
    return this.mustDevice(this.mustSite(siteId), deviceId);
  }

  /** A new secret for a device: the old one stops working at once (its live session is ended too). */
  rotateSecret(siteId: string, deviceId: string, by: string): string {
    const d = this.mustDevice(this.mustSite(siteId), deviceId);
    if (d.transport !== undefined && d.transport !== 'json')
      throw new CatalogueError(
        'NO_MQTT_SECRET',
        'This device connects through LoRaWAN, Modbus RTU or SDI-12: it has no MQTT password to replace.',
      );
    const password = newPassword();
    const hash = hashPassword(password);
    this.commit({ siteId, deviceId, what: 'secret', by }, () => {
      this.rows.setSecret(siteId, deviceId, hash, this.o.now());
      this.changes.record({ entity: 'secret', action: 'rotate', by, siteId, deviceId });
    });
    return password;
  }

  /**
   * Refuses a device whose login name or a client id is another's: a device in service, a retired one
   * (its identities are never given again) or a configured MQTT user (config/identities.ts).
   */
  private mustOwnIdentities(siteId: string, device: DeviceConfig): void {
    const index = new IdentityIndex();
    for (const s of this.list)
      for (const d of s.devices) index.add(deviceHolder(s.id, d.id), deviceIdentities(s.id, d));
    for (const r of this.rows.retiredIdentities())
      index.add(deviceHolder(r.siteId, r.id, true), deviceIdentities(r.siteId, r));
    for (const u of this.o.mqttUsers ?? []) index.add(userHolder(u), [u]);
    const c = index.collision(deviceIdentities(siteId, device), deviceKey(siteId, device.id));
    if (c) throw new CatalogueError('CONFLICT', collisionMessage(c));
  }

  /**
   * Refuses a device of a native transport whose profile, DevEUI, bus or adapter does not fit
   * (deviceTransport.ts): a profile of the library for its transport and kind, what must be its own.
   */
  private mustConnect(siteId: string, device: DeviceConfig): void {
    const problems = transportProblems(siteId, device, this.list, this.o.fieldbus, this.o.profiles);
    if (problems.length) throw new CatalogueError('BAD_REQUEST', problems.join('; '));
  }

  /** Refuses a site with a figure looser than the law and no reason for the override. */
  /** A practice a finding names is retired, never removed; a retirement stays as recorded. */
  private mustKeepPractices(cur: SiteConfig, next: SiteConfig): void {
    const problem = practicesProblem(cur.practices ?? [], next.practices ?? [], {
      named: () => namedPractices(this.db, cur.id),
      now: this.o.now(),
      tz: next.timezone ?? this.o.timezone ?? 'UTC',
    });
    if (problem) throw new CatalogueError('PRACTICE_KEPT', problem);
  }

  private mustExplainFigures(site: SiteConfig): void {
    const problem = overrideProblem(site);
    if (problem) throw new CatalogueError('BAD_REQUEST', problem);
  }

  /** The history a change leaves the site with, its times checked against the gateway's clock. */
  private history(cur: SiteConfig['history'], given: SiteConfig['history']): SiteConfig['history'] {
    const r = mergeHistory(cur, given, this.o.now());
    if (r.problem) throw new CatalogueError('BAD_REQUEST', r.problem);
    return r.history;
  }

  private mustSite(id: string): SiteConfig {
    const s = this.byId.get(id);
    if (!s) throw new CatalogueError('NOT_FOUND', `no site ${id}`);
    return s;
  }

  private mustDevice(site: SiteConfig, deviceId: string): DeviceConfig {
    const d = site.devices.find((x) => x.id === deviceId);
    if (!d) throw new CatalogueError('NOT_FOUND', `no device ${site.id}/${deviceId}`);
    return d;
  }

  /** Runs a change in one transaction, reloads, and tells the listeners. */
  private commit(e: SiteChange, change: () => void): this {
    this.db.transaction(change)();
    this.reload();
    for (const l of this.listeners) {
      try {
        l(e);
      } catch (err) {
        this.o.log.error(
          { err: String(err), siteId: e.siteId, deviceId: e.deviceId },
          'a catalogue listener failed',
        );
      }
    }
    return this;
  }

  private reload(): void {
    const { sites, retired } = this.rows.load();
    this.list = sites;
    this.byId = new Map(sites.map((s) => [s.id, s]));
    this.retired = retired;
  }
}
