/**
 * MQTT identities are one each: a device's login name (its `username`, by default `siteId/deviceId`) and
 * the client ids it may use (`siteId/deviceId`, its username and its `clientIds`, where a trailing `*`
 * matches any rest) belong to it alone, across every device, the retired ones and the configured MQTT
 * users. Were two devices to share one, the broker would take one for the other: the real device locked
 * out, its data stopped. The configuration check and the admin API both refuse a collision with this.
 * Identities are compared normalized (`normalizeIdentity`): `Maple-Ridge/RG-1`, `maple-ridge/rg-1 ` and
 * `maple‐ridge/rg-1` are one identity, so a look-alike collides rather than making a second login.
 */

/**
 * An identity as compared: Unicode NFKC, every dash (U+2010 hyphen, en dash, minus sign, …) as `-`,
 * runs of white space as one space, trimmed, lower case. Logins and client ids are looked up this way.
 */
export function normalizeIdentity(id: string): string {
  return id
    .normalize('NFKC')
    .replace(/[\p{Pd}\u2212]/gu, '-')
    .replace(/\s+/gu, ' ')
    .trim()
    .toLowerCase();
}

/** Who holds identities, in words a clerk reads: "device rg-1 of site maple-ridge". */
export interface Holder {
  /** A key to leave a holder out (the device being edited). */
  key: string;
  what: string;
}

export interface Collision {
  /** The identity asked for. */
  identity: string;
  /** The one it collides with (the same, or a pattern that covers it). */
  held: string;
  holder: Holder;
}

export const deviceKey = (siteId: string, deviceId: string) => `device:${siteId}/${deviceId}`;

export function deviceHolder(siteId: string, deviceId: string, retired = false): Holder {
  return {
    key: deviceKey(siteId, deviceId),
    what: `${retired ? 'the retired device' : 'device'} ${deviceId} of site ${siteId}`,
  };
}

export const userHolder = (username: string): Holder => ({
  key: `user:${username}`,
  what: `the MQTT account ${username}`,
});

/** A device's identities: its login name and every client id it may use. */
export function deviceIdentities(
  siteId: string,
  d: { id: string; username?: string | undefined; clientIds?: readonly string[] | undefined },
): string[] {
  return [...new Set([`${siteId}/${d.id}`, d.username ?? `${siteId}/${d.id}`, ...(d.clientIds ?? [])])];
}

const isPattern = (id: string) => id.endsWith('*');
const stem = (id: string) => id.slice(0, -1);

/** The identities held so far, exact ones looked up at once, patterns (few) compared. */
export class IdentityIndex {
  /** By normalized identity: the identity as its holder wrote it, and the holder. */
  private readonly exact = new Map<string, { id: string; holder: Holder }>();
  /** `id` normalized (a pattern's stem compared), `as` as written. */
  private readonly patterns: Array<{ id: string; as: string; holder: Holder }> = [];

  /** The first identity of `ids` that another holder has, or undefined. */
  collision(ids: readonly string[], except?: string): Collision | undefined {
    const other = (h: Holder) => h.key !== except;
    for (const identity of ids) {
      const n = normalizeIdentity(identity);
      if (isPattern(identity)) {
        const s = normalizeIdentity(stem(identity));
        for (const [held, h] of this.exact)
          if (held.startsWith(s) && other(h.holder)) return { identity, held: h.id, holder: h.holder };
        for (const p of this.patterns)
          if ((p.id.startsWith(s) || s.startsWith(stem(p.id))) && other(p.holder))
            return { identity, held: p.as, holder: p.holder };
      } else {
        const h = this.exact.get(n);
        if (h && other(h.holder)) return { identity, held: h.id, holder: h.holder };
        for (const p of this.patterns)
          if (n.startsWith(stem(p.id)) && other(p.holder)) return { identity, held: p.as, holder: p.holder };
      }
    }
    return undefined;
  }

  add(holder: Holder, ids: readonly string[]): void {
    for (const id of ids) {
      const n = normalizeIdentity(id);
      if (isPattern(id)) this.patterns.push({ id: `${normalizeIdentity(stem(id))}*`, as: id, holder });
      else if (!this.exact.has(n)) this.exact.set(n, { id, holder });
    }
  }
}

/** The sentence for a collision, naming who holds the identity. */
export function collisionMessage(c: Collision): string {
  const held =
    c.held === c.identity
      ? ''
      : normalizeIdentity(c.held) === normalizeIdentity(c.identity)
        ? ` (as "${c.held}": case, spaces and dashes do not tell logins apart)`
        : ` (through "${c.held}")`;
  return `The MQTT login name or client id "${c.identity}" already belongs to ${c.holder.what}${held}. Each device needs a login name and client ids of its own.`;
}

/**
 * Every collision among the configuration's devices and MQTT users, each at the path of the later one
 * (its `username`, its `clientIds`, or its id when its own `siteId/deviceId` is taken).
 */
export function configCollisions(
  sites: ReadonlyArray<{
    id: string;
    devices: ReadonlyArray<{ id: string; username?: string | undefined; clientIds?: readonly string[] }>;
  }>,
  users: ReadonlyArray<{ username: string }>,
): Array<{ path: Array<string | number>; message: string }> {
  const index = new IdentityIndex();
  const found: Array<{ path: Array<string | number>; message: string }> = [];
  sites.forEach((s, i) => {
    s.devices.forEach((d, j) => {
      const ids = deviceIdentities(s.id, d);
      const c = index.collision(ids);
      if (c) {
        const k = d.clientIds?.indexOf(c.identity) ?? -1;
        const field = k >= 0 ? ['clientIds', k] : c.identity === d.username ? ['username'] : ['id'];
        found.push({ path: ['sites', i, 'devices', j, ...field], message: collisionMessage(c) });
      }
      index.add(deviceHolder(s.id, d.id), ids);
    });
  });
  users.forEach((u, k) => {
    const c = index.collision([u.username]);
    if (c) found.push({ path: ['mqtt', 'users', k, 'username'], message: collisionMessage(c) });
    index.add(userHolder(u.username), [u.username]);
  });
  return found;
}
