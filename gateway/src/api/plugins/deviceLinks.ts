/**
 * GET /api/profiles (the library of ready profiles, for the device forms) and
 * GET /api/sites/{siteId}/devices/{deviceId}/link (how a device is heard: its transport, its profile, the
 * last message as it sent it beside the readings it gave, its errors in words, its counts). Viewers and
 * up; an account limited to its sites sees only theirs. Not in the public view: raw messages are private.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { DeviceLink, ProfileSummary } from '../../../../shared/src/api/deviceLink.ts';
import { siteDeviceParams } from '../../../../shared/src/api/requests.ts';
import { profileOf } from '../../admin/deviceTransport.ts';
import type { Profile } from '../../decode/profiles/schema.ts';
import { needsMountHeight } from '../../decode/profiles/schema.ts';
import { mustSee } from '../auth.ts';
import type { ApiContext } from '../context.ts';
import { ApiError } from '../errors.ts';
import { parseWith } from '../query.ts';
import { route } from '../routes.ts';

/** What the device link routes use. */
export type DeviceLinksServices = Pick<ApiContext, 'auth' | 'catalogue' | 'links' | 'profiles'>;

const iso = (ms: number) => new Date(ms).toISOString();

export function profileSummary(p: Profile): ProfileSummary {
  return {
    name: p.name,
    label: p.label,
    transport: p.transport,
    source: p.source,
    kinds: [...p.kinds],
    readings: [...new Set(p.fields.map((f) => f.reading))],
    needsMountHeight: needsMountHeight(p),
  };
}

export const deviceLinksPlugin: FastifyPluginAsync<DeviceLinksServices> = async (app, ctx) => {
  const secured = { security: [{ bearer: [] }] };
  app.route(
    route(
      'GET /api/profiles',
      {
        schema: {
          tags: ['sites'],
          summary: 'The ready sensor profiles (LoRaWAN, Modbus RTU, SDI-12): label, source, kinds, readings',
          ...secured,
        },
      },
      async (req) => {
        ctx.auth.requireRead(req);
        return ctx.profiles.list.map(profileSummary);
      },
    ),
  );

  app.route(
    route(
      'GET /api/sites/:siteId/devices/:deviceId/link',
      {
        schema: {
          tags: ['sites'],
          summary:
            'How a device is heard: its transport and profile, its last message beside the readings it gave, its errors in words',
          ...secured,
        },
      },
      async (req): Promise<DeviceLink> => {
        const caller = ctx.auth.requireRead(req);
        const { siteId, deviceId } = parseWith(siteDeviceParams, req.params);
        mustSee(caller, siteId);
        const device = ctx.catalogue.site(siteId)?.devices.find((d) => d.id === deviceId);
        if (!device) throw new ApiError('NOT_FOUND', `no device ${siteId}/${deviceId}`);
        const p = profileOf(device, ctx.profiles);
        const state = ctx.links.get(siteId, deviceId);
        return {
          transport: device.transport ?? 'json',
          ...(p
            ? {
                profile: {
                  ...(typeof device.profile === 'string' ? { name: device.profile } : {}),
                  label: p.label,
                  source: p.source,
                },
              }
            : {}),
          last: state?.last
            ? {
                at: iso(state.last.at),
                raw: state.last.raw,
                outcome: state.last.outcome,
                values: state.last.values,
                ...(state.last.detail !== undefined ? { detail: state.last.detail } : {}),
              }
            : null,
          errors: (state?.errors ?? []).map((e) => ({ at: iso(e.at), text: e.text })),
          counts: { ...(state?.counts ?? {}) },
        };
      },
    ),
  );
};
