/**
 * Client ids and what one login may hold. A client id belongs to the login that uses it: a device's own
 * ids (`siteId/deviceId`, its username, its configured `clientIds`) are its alone from the start; any other
 * id belongs to the login that first connected with it, for as long as it is connected or keeps a
 * persistent session. Another login using it is refused (CONNACK "identifier rejected"), so no login can
 * push another off the broker or resume its session and read what was queued for it. Each login holds at
 * most `maxConnections` connections and `maxSessions` persistent sessions at once.
 */

import type { Client } from 'aedes';
import { normalizeIdentity } from '../../config/identities.ts';
import type { DeviceInfo, DeviceRegistry } from '../../config/registry.ts';
import { deviceKey } from '../../deviceKey.ts';
import type { Principal } from './brokerPolicy.ts';

/** Why a connection is refused, with its MQTT 3.1.1 CONNACK return code. */
export interface SessionRefusal {
  code: 2 | 3;
  message: string;
}

interface Holding {
  login: string;
  /** Connections that logged in with this id and are not closed yet. */
  holders: Set<Client>;
  /** A persistent session (clean = false) lives on between connections. */
  persistent: boolean;
}

export interface SessionLimits {
  maxConnections: number;
  maxSessions: number;
}

/** The login a principal stands for. */
export function loginOf(p: Principal): string {
  if (p.kind === 'device') return `device:${p.device.siteId}/${p.device.deviceId}`;
  if (p.kind === 'user') return `user:${p.username}`;
  return 'anonymous';
}

export class Sessions {
  private held = new Map<string, Holding>();
  /** Exact client ids reserved for a device, and prefixes (`id*`) reserved for one. */
  private reserved = new Map<string, DeviceInfo>();
  private prefixes: Array<{ prefix: string; device: DeviceInfo }> = [];

  constructor(
    private readonly registry: DeviceRegistry,
    private readonly limits: SessionLimits,
  ) {
    this.refresh();
  }

  /** Takes the registry's devices again (one was added, changed or retired). */
  refresh(): void {
    this.reserved.clear();
    this.prefixes = [];
    // The username first: a map keeps the first of two equal keys, and a device's username is most often
    // its `site/device` key, so the map holds the registry's string rather than a second copy.
    for (const d of this.registry.all())
      for (const id of [d.username, deviceKey(d.siteId, d.deviceId), ...(d.device.clientIds ?? [])]) {
        const n = normalizeIdentity(id);
        const key = n === id ? id : n;
        if (id.endsWith('*')) this.prefixes.push({ prefix: normalizeIdentity(id.slice(0, -1)), device: d });
        else this.reserved.set(key, d);
      }
  }

  /** The device a client id is reserved for, if any (look-alikes compared normalized). */
  reservedFor(clientId: string): DeviceInfo | undefined {
    const id = normalizeIdentity(clientId);
    return this.reserved.get(id) ?? this.prefixes.find((p) => id.startsWith(p.prefix))?.device;
  }

  /**
   * Whether `client` (already authenticated as `p`) may connect with its client id; when it may, the id is
   * held for the login until the connection closes (and, for a persistent session, beyond).
   */
  admit(client: Client, p: Principal): SessionRefusal | undefined {
    const id = client.id;
    const login = loginOf(p);
    const owner = this.reservedFor(id);
    if (p.kind === 'device') {
      if (owner?.siteId !== p.device.siteId || owner.deviceId !== p.device.deviceId)
        return {
          code: 2,
          message: `client id "${id}" is not one of ${p.device.siteId}/${p.device.deviceId}'s own (its siteId/deviceId or its configured clientIds)`,
        };
    } else if (owner)
      return { code: 2, message: `client id "${id}" belongs to device ${owner.siteId}/${owner.deviceId}` };
    const h = this.held.get(id);
    if (h && h.login !== login) return { code: 2, message: `client id "${id}" is in use by another login` };
    let connections = 0;
    let sessions = 0;
    for (const [otherId, o] of this.held) {
      if (o.login !== login || otherId === id) continue;
      connections += o.holders.size;
      if (o.persistent) sessions++;
    }
    if (connections >= this.limits.maxConnections)
      return {
        code: 3,
        message: `${login} already has ${connections} connections (mqtt.maxConnectionsPerLogin)`,
      };
    if (!client.clean && sessions >= this.limits.maxSessions)
      return {
        code: 3,
        message: `${login} already keeps ${sessions} persistent sessions (mqtt.maxSessionsPerLogin)`,
      };
    const holding = h ?? { login, holders: new Set<Client>(), persistent: false };
    holding.holders.add(client);
    // A clean connection ends the id's session; a persistent one starts or resumes it.
    holding.persistent = !client.clean;
    this.held.set(id, holding);
    client.conn.once('close', () => this.closed(id, client));
    return undefined;
  }

  /** Connections held now by a login (for tests and health). */
  connectionsOf(login: string): number {
    let n = 0;
    for (const h of this.held.values()) if (h.login === login) n += h.holders.size;
    return n;
  }

  private closed(id: string, client: Client): void {
    const h = this.held.get(id);
    if (!h) return;
    h.holders.delete(client);
    if (h.holders.size === 0 && !h.persistent) this.held.delete(id);
  }
}
