import type { FastifyPluginAsync } from 'fastify';
import {
  ENFORCEMENT_LAWS,
  type EnforcementLaw,
  lawIdOfSiteKind,
  withTownAppeal,
} from '../../../../shared/src/api/enforcementLaws.ts';
import { idParams } from '../../../../shared/src/api/requests.ts';
import type { Config, DeviceConfig, SiteConfig } from '../../config/schema.ts';
import { workHalted } from '../../enforcement/halted.ts';
import { deviceParams } from '../../rules/index.ts';
import { maySee, mustSee } from '../auth.ts';
import type { ApiContext } from '../context.ts';
import { ApiError } from '../errors.ts';
import { publicSite } from '../publicView.ts';
import { parseWith } from '../query.ts';
import { route } from '../routes.ts';

/** The network servers the gateway takes LoRaWAN uplinks from, in words. */
function networkServers(config: Config): string | undefined {
  const names = [
    ...(config.integrations.chirpstack ? ['ChirpStack'] : []),
    ...(config.integrations.thingsStack ? ['The Things Stack'] : []),
  ];
  return names.length ? names.join(' or ') : undefined;
}

/** How a device connects, as its view shows it (nothing for the gateway's own JSON). */
function connection(d: DeviceConfig, config: Config) {
  if (d.transport === undefined || d.transport === 'json') return {};
  const server = d.transport === 'lorawan' ? networkServers(config) : undefined;
  return {
    transport: d.transport,
    ...(d.profile !== undefined
      ? { profile: typeof d.profile === 'string' ? d.profile : d.profile.name }
      : {}),
    ...(d.devEui !== undefined ? { devEui: d.devEui } : {}),
    ...(server ? { networkServer: server } : {}),
    ...(d.modbus ? { modbus: d.modbus } : {}),
    ...(d.sdi12 ? { sdi12: d.sdi12 } : {}),
    ...(d.mountHeightIn !== undefined ? { mountHeightIn: d.mountHeightIn } : {}),
  };
}

export function siteSummary(
  ctx: Pick<ApiContext, 'config' | 'catalogue' | 'devices'>,
  site: SiteConfig,
  withLatest: boolean,
) {
  return {
    id: site.id,
    name: site.name ?? site.id,
    kind: site.kind,
    timezone: site.timezone ?? ctx.config.timezone,
    active: site.active,
    ...(site.history ? { history: site.history } : {}),
    ...(site.practices ? { practices: site.practices } : {}),
    ...(site.landowner ? { landowner: site.landowner } : {}),
    ...(site.developer ? { developer: site.developer } : {}),
    ...(site.address ? { address: site.address } : {}),
    ...(site.developerInspectors ? { developerInspectors: site.developerInspectors } : {}),
    ...(site.lawOverrides ? { lawOverrides: site.lawOverrides } : {}),
    retiredDevices: [...ctx.catalogue.retiredDevices(site.id)],
    devices: site.devices.map((d) => {
      const st = ctx.devices.deviceState(site.id, d.id);
      return {
        id: d.id,
        kind: d.kind,
        ...(d.name ? { name: d.name } : {}),
        ...(d.role ? { role: d.role } : {}),
        ...(d.inchesPerTip !== undefined ? { inchesPerTip: d.inchesPerTip } : {}),
        ...deviceParams(d),
        ...connection(d, ctx.config),
        status: st?.status ?? 'unknown',
        statusAt: st?.statusAt ? new Date(st.statusAt).toISOString() : null,
        lastReadingAt: st?.lastTs ? new Date(st.lastTs).toISOString() : null,
        lastReceivedAt: st?.lastReceivedAt ? new Date(st.lastReceivedAt).toISOString() : null,
        ...(withLatest
          ? {
              latest: Object.fromEntries(
                Object.entries(st?.latest ?? {}).map(([k, v]) => [
                  k,
                  { value: v.value, ts: new Date(v.ts).toISOString() },
                ]),
              ),
            }
          : {}),
      };
    }),
  };
}

/** GET /api/sites and GET /api/sites/{id} (with the latest reading of every field of every device). */
/** What the sites use. */
export type SitesServices = Pick<
  ApiContext,
  'auth' | 'catalogue' | 'compliance' | 'config' | 'devices' | 'enforcement'
>;

export const sitesPlugin: FastifyPluginAsync<SitesServices> = async (app, ctx) => {
  // A construction site's view says which stop-work order is in effect (null: none), and whether a
  // violation finding not yet corrected and approved halts work (null: none).
  /** The days to appeal a notice at a site of `kind`: the law's, or the town's choice with its reason. */
  const appealOf = (kind: string) => {
    const law: EnforcementLaw = ENFORCEMENT_LAWS[lawIdOfSiteKind(kind)];
    if (law.appealDaysChosen === undefined) return { days: law.appealDays };
    const town = withTownAppeal(law, ctx.config.enforcement.wastewaterAppeal);
    return { days: town.appealDays, ...(town.appealReason ? { reason: town.appealReason } : {}) };
  };
  const view = (site: SiteConfig, withLatest: boolean) => {
    const summary = { ...siteSummary(ctx, site, withLatest), appeal: appealOf(site.kind) };
    if (site.kind !== 'construction') return summary;
    const found = ctx.compliance.violationInspections(site.id);
    const halted =
      found.length === 0
        ? null
        : workHalted(found, ctx.enforcement.violations.list({ siteId: site.id }), site.practices);
    return {
      ...summary,
      stopWork: ctx.enforcement.violations.inEffect(site.id) ?? null,
      workHalted: halted,
    };
  };
  app.route(
    route(
      'GET /api/sites',
      {
        schema: {
          tags: ['sites'],
          summary: 'All sites with their devices',
        },
      },
      async (req) => {
        const caller = ctx.auth.readPublic(req);
        return ctx.catalogue
          .sites()
          .filter((s) => maySee(caller, s.id))
          .map((s) => (caller ? view(s, false) : publicSite(view(s, false))));
      },
    ),
  );
  app.route(
    route(
      'GET /api/sites/:id',
      {
        schema: {
          tags: ['sites'],
          summary: 'One site with the latest readings of its devices',
        },
      },
      async (req) => {
        const caller = ctx.auth.readPublic(req);
        const { id } = parseWith(idParams, req.params);
        mustSee(caller, id);
        const site = ctx.catalogue.site(id);
        if (!site) throw new ApiError('NOT_FOUND', `no site ${id}`);
        return caller ? view(site, true) : publicSite(view(site, true));
      },
    ),
  );
};
