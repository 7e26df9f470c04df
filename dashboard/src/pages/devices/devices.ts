/**
 * A site's devices (admin): add one with its kind's parameters and how it connects (the gateway's own
 * JSON over MQTT, or LoRaWAN, Modbus RTU, SDI-12 with a sensor profile: transport-fields.ts), edit,
 * change a rain gauge's calibration from an effective time, retire, rotate its MQTT secret. A new secret
 * is shown once; a device of another way of connecting has none.
 */

import { connectionText } from '../../../../shared/src/connectionWords.ts';
import { type Body, describeError, get, patch, post } from '../../api.js';
import { loadAll, siteById, siteZone } from '../../state.js';
import { closeEditor, openEditor, showSecret } from '../../ui/dialogs.js';
import { badge, byId, h, replace } from '../../ui/dom.js';
import { buildForm, fill, schemaNamed, table } from '../../ui/form.js';
import { formatTime, utcToZonedInput, zonedToUtc } from '../../ui/format.js';
import { followTransport, profiles, transportFields } from './transport-fields.js';

export type Field = import('../../ui/form.js').Field;
type Device = import('../../state.js').Device;
/** A device as its site's answer lists it, or one the site retired (its id alone). */
export type DeviceRow = Pick<Device, 'id' | 'kind'> &
  Partial<Device> & { retired?: boolean; retiredAt?: string };

const KINDS = [
  ['rain-gauge', 'Rain gauge'],
  ['sediment-trap', 'Sediment trap'],
  ['turbidity', 'Turbidity sensor'],
  ['septic-panel', 'Septic panel (alarms, levels)'],
  ['septic-tank', 'Septic tank level sensor'],
  ['holding-tank', 'Holding tank level sensor'],
] as Array<[string, string]>;

/**
 * The parameters each kind takes (the schema checks them; this says which fields to show).
 * @type
 */
const KIND_FIELDS: Array<Field & { kinds: string[] }> = [
  {
    name: 'inchesPerTip',
    label: 'Inches per tip',
    type: 'number',
    kinds: ['rain-gauge'],
    hint: '0.01, or 0.007874 for 0.2 mm',
  },
  { name: 'maxTipsPerMinute', label: 'Most tips a minute it counts', type: 'number', kinds: ['rain-gauge'] },
  { name: 'designDepthIn', label: 'Design sediment depth (in)', type: 'number', kinds: ['sediment-trap'] },
  {
    name: 'stageStorage',
    label: 'Stage-storage table (depth in, volume)',
    type: 'json',
    kinds: ['sediment-trap'],
    hint: 'instead of a design depth, for sloped walls: [[0, 0], [12, 40], [24, 100]]',
  },
  {
    name: 'role',
    label: 'Role',
    type: 'select',
    kinds: ['turbidity'],
    options: [
      ['background', 'Upstream background'],
      ['outlet', 'Outlet'],
    ],
  },
  {
    name: 'liquidDepthIn',
    label: 'Liquid depth (in)',
    type: 'number',
    kinds: ['septic-panel', 'septic-tank', 'holding-tank'],
  },
  { name: 'highLevelIn', label: 'High level (in)', type: 'number', kinds: ['holding-tank'] },
];
const COMMON = [
  { name: 'name', label: 'Name (optional)' },
  {
    name: 'silentAfterMinutes',
    label: 'Silent after (minutes)',
    type: 'number',
    hint: 'empty: the default for its kind',
  },
] as Field[];

/**
 * @param fixedKind the kind of an existing device; undefined: a choice, fields follow it
 */
function deviceFields(fixedKind: string | undefined, d?: DeviceRow, skip: string[] = []): Field[] {
  const kindIs = (ks: string[]) => (v: Record<string, unknown>) => ks.includes(String(fixedKind ?? v.kind));
  return [
    ...COMMON.map((f) => ({ ...f, value: d?.[f.name] })),
    ...KIND_FIELDS.filter((f) => !skip.includes(f.name) && (!fixedKind || f.kinds.includes(fixedKind))).map(
      ({ kinds, ...f }) => ({ ...f, value: d?.[f.name], when: kindIs(kinds) }),
    ),
  ];
}

const deviceParams = () => schemaNamed('deviceParams');
const deviceCreate = async () => [await schemaNamed('deviceCreateBody'), await deviceParams()];
const devicePatch = async () => [await schemaNamed('devicePatchBody'), await deviceParams()];

const isRetired = (d: DeviceRow) =>
  d.retired === true || typeof d.retiredAt === 'string' || d.status === 'retired';

async function rotate(siteId: string, deviceId: string) {
  const r = await post('POST /api/sites/:siteId/devices/:deviceId/secret', { params: { siteId, deviceId } });
  showSecret(
    `New MQTT password for ${deviceId}`,
    [['Password', r.password]],
    'The old password stopped working at once; the device must log in with this one.',
  );
}

const native = (d: Pick<DeviceRow, 'transport'>) => d.transport !== undefined && d.transport !== 'json';

async function editDevice(siteId: string, d: DeviceRow) {
  const list = await profiles();
  const tz = siteZone(siteId);
  const params = { siteId, deviceId: d.id };
  const save = (body: Body<'PATCH /api/sites/:siteId/devices/:deviceId'>) =>
    patch('PATCH /api/sites/:siteId/devices/:deviceId', { params, body });
  const done = async () => {
    closeEditor();
    await loadAll();
    await listDevices(siteId);
  };
  const edit = buildForm({
    id: 'device-edit',
    className: 'form',
    submitLabel: 'Save changes',
    schema: devicePatch,
    fields: [...deviceFields(d.kind, d, ['inchesPerTip']), ...transportFields(list, d)],
    submit: async (v) => {
      await save(v);
      await done();
      return 'Saved.';
    },
  });
  const calibration =
    d.kind === 'rain-gauge'
      ? buildForm({
          id: 'device-calibration',
          className: 'form',
          submitLabel: 'Change calibration',
          schema: devicePatch,
          fields: [
            { name: 'inchesPerTip', label: 'New inches per tip', type: 'number', value: d.inchesPerTip },
            {
              name: 'effectiveAt',
              label: `Effective from (${tz})`,
              type: 'text',
              value: utcToZonedInput(Date.now(), tz),
              hint: 'readings before it keep the old calibration',
            },
          ],
          extra: (v) => {
            const ms = zonedToUtc(String(v.effectiveAt ?? ''), tz);
            return Number.isFinite(ms) ? { effectiveAt: new Date(ms).toISOString() } : {};
          },
          submit: async (v) => {
            await save(v);
            await done();
            return 'Calibration changed.';
          },
        }).form
      : null;
  calibration?.querySelector('input[name="effectiveAt"]')?.setAttribute('type', 'datetime-local');
  followTransport(edit.form, list, d.kind);
  const msg = h('p', { class: 'msg', role: 'status' });
  const confirmRetire = h('input', { type: 'checkbox', id: 'device-retire-confirm' }) as HTMLInputElement;
  openEditor(
    `Device ${d.id}`,
    h(
      'p',
      { class: 'small muted' },
      `${KINDS.find(([k]) => k === d.kind)?.[1] ?? d.kind} at ${siteById(siteId)?.name ?? siteId}`,
    ),
    edit.form,
    calibration ? [h('h3', null, 'Calibration'), calibration] : null,
    h('h3', null, native(d) ? 'Retirement' : 'MQTT secret and retirement'),
    h(
      'div',
      { class: 'row' },
      native(d)
        ? null
        : h(
            'button',
            {
              type: 'button',
              id: 'device-rotate',
              class: 'secondary',
              onclick: () => void rotate(siteId, d.id).catch((e) => replace(msg, describeError(e))),
            },
            'Rotate secret',
          ),
      isRetired(d)
        ? null
        : h(
            'button',
            {
              type: 'button',
              id: 'device-retire',
              class: 'danger',
              onclick: async () => {
                if (!confirmRetire.checked) {
                  msg.className = 'msg msg-bad';
                  msg.textContent =
                    'Tick the box to confirm: a retired device may not log in again; its history stays.';
                  return;
                }
                try {
                  await save({ retired: true });
                  await done();
                } catch (e) {
                  msg.className = 'msg msg-bad';
                  msg.textContent = describeError(e);
                }
              },
            },
            'Retire device',
          ),
    ),
    isRetired(d)
      ? null
      : h('label', { class: 'check small' }, confirmRetire, ' I mean to retire it (its history stays)'),
    msg,
  );
}

export async function loadDevices(siteId: string) {
  const site = siteById(siteId);
  replace(byId('devices-title'), `Devices of ${site?.name ?? siteId}`);
  const list = await profiles();
  const { form } = buildForm({
    id: 'device-add',
    submitLabel: 'Add device',
    schema: deviceCreate,
    fields: [
      {
        name: 'id',
        label: 'Device id',
        hint: 'letters, digits, "_", "." and "-"; it logs in as site/device',
      },
      { name: 'kind', label: 'Kind', type: 'select', options: KINDS, value: 'rain-gauge' },
      ...deviceFields(undefined),
      ...transportFields(list),
    ],
    submit: async (v) => {
      const r = await post('POST /api/sites/:siteId/devices', {
        params: { siteId },
        body: v as Body<'POST /api/sites/:siteId/devices'>,
      });
      form.reset();
      form.dispatchEvent(new Event('change'));
      if ('message' in r) {
        await loadAll();
        await listDevices(siteId);
        return `Added ${v.id}. ${r.message}`;
      }
      showSecret(`MQTT login for ${v.id}`, [
        ...(r.clientId ? [['Client id', r.clientId] as [string, string]] : []),
        ['Username', r.username],
        ['Password', r.password],
      ]);
      await loadAll();
      await listDevices(siteId);
      return `Added ${v.id}.`;
    },
  });
  followTransport(form, list);
  byId('devices-add').replaceChildren(h('h3', null, 'Add a device'), form);
  await listDevices(siteId);
}

async function listDevices(siteId: string) {
  await fill(byId('devices-list'), async () => {
    const site = await get('GET /api/sites/:id', { params: { id: siteId } });
    const tz = siteZone(siteId);
    // Retired devices are no longer the site's; their history stays, and so do they in this list.
    const retired: DeviceRow[] = site.retiredDevices.map((id) => ({ id, kind: '', retired: true }));
    const full: { devices: DeviceRow[] } = { devices: [...site.devices, ...retired] };
    return table(
      ['Device', 'Kind', 'How it connects', 'Parameters', 'Status', ''],
      full.devices.map((d) => [
        h('code', null, d.id),
        KINDS.find(([k]) => k === d.kind)?.[1] ?? d.kind,
        isRetired(d) ? '—' : connectionText(d),
        KIND_FIELDS.filter((f) => f.kinds.includes(d.kind) && d[f.name] !== undefined)
          .map((f) => `${f.label}: ${typeof d[f.name] === 'object' ? JSON.stringify(d[f.name]) : d[f.name]}`)
          .join('; ') || '—',
        isRetired(d)
          ? badge(`retired${d.retiredAt ? ` ${formatTime(d.retiredAt, tz)}` : ''}`, 'bad')
          : badge(String(d.status ?? 'unknown'), d.status === 'online' ? 'ok' : 'info'),
        isRetired(d)
          ? ''
          : h(
              'button',
              { type: 'button', class: 'secondary', onclick: () => void editDevice(siteId, d) },
              'Edit',
            ),
      ]),
      (i) => ({ 'data-device-row': full.devices[i]?.id ?? '' }),
    );
  });
}
