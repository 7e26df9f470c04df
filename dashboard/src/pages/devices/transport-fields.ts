/**
 * The device forms' part for a device that does not speak the gateway's own JSON: "How it connects"
 * (a select), then the sensor profile (the ready profiles of GET /api/profiles, those of that way of
 * connecting and of the device's kind), then what that way needs: the DevEUI (LoRaWAN), the bus, unit and
 * poll interval (Modbus RTU), the adapter, address and poll interval (SDI-12), the mounting height when the
 * profile derives a level from it. The gateway checks them all again and says what is wrong by field.
 */
import { TRANSPORT_WORDS } from '../../../../shared/src/transportWords.ts';
import { get } from '../../api.js';
import { h } from '../../ui/dom.js';

type Field = import('../../ui/form.js').Field;
type Device = import('../../state.js').Device;
export type ProfileSummary = import('../../../../shared/src/api/deviceLink.ts').ProfileSummary;

let loaded: Promise<ProfileSummary[]> | undefined;
/** The ready profiles, asked once a page load (none when they cannot be had: the gateway checks). */
export function profiles(): Promise<ProfileSummary[]> {
  loaded ??= get('GET /api/profiles').catch((e: unknown) => {
    console.warn('the sensor profiles could not be loaded', e);
    loaded = undefined;
    return [];
  });
  return loaded;
}

const is =
  (...ts: string[]) =>
  (v: Record<string, unknown>) =>
    ts.includes(String(v.transport ?? 'json'));

/**
 * The fields, with a device's values when it is edited.
 * @param list the ready profiles
 */
export function transportFields(list: ProfileSummary[], d?: Partial<Device>): Field[] {
  const needsHeight = (v: Record<string, unknown>) =>
    is('lorawan', 'modbus', 'sdi12')(v) && list.some((p) => p.name === v.profile && p.needsMountHeight);
  return [
    {
      name: 'transport',
      label: 'How it connects',
      type: 'select',
      options: Object.entries(TRANSPORT_WORDS),
      value: d?.transport ?? 'json',
    },
    {
      name: 'profile',
      label: 'Sensor profile',
      type: 'select',
      options: [['', 'Choose the sensor…'], ...list.map((p): [string, string] => [p.name, p.label])],
      value: d?.profile ?? '',
      hint: 'how the gateway reads what the sensor sends, after its maker’s document',
      when: is('lorawan', 'modbus', 'sdi12'),
    },
    {
      name: 'devEui',
      label: 'DevEUI',
      value: d?.devEui,
      placeholder: '70B3D57ED0001234',
      hint: 'the 16 hexadecimal digits on the sensor’s label, as the network server names it',
      when: is('lorawan'),
    },
    {
      name: 'modbus.bus',
      label: 'Bus (RS-485 adapter)',
      value: d?.modbus?.bus,
      placeholder: '/dev/ttyUSB0',
      when: is('modbus'),
    },
    {
      name: 'modbus.unitId',
      label: 'Unit (1 to 247)',
      type: 'number',
      value: d?.modbus?.unitId,
      when: is('modbus'),
    },
    {
      name: 'modbus.pollSeconds',
      label: 'Read every (seconds)',
      type: 'number',
      value: d?.modbus?.pollSeconds ?? 60,
      when: is('modbus'),
    },
    {
      name: 'sdi12.port',
      label: 'SDI-12 adapter',
      value: d?.sdi12?.port,
      placeholder: '/dev/ttyUSB1',
      when: is('sdi12'),
    },
    {
      name: 'sdi12.address',
      label: 'Address (one character)',
      value: d?.sdi12?.address,
      placeholder: '0',
      when: is('sdi12'),
    },
    {
      name: 'sdi12.pollSeconds',
      label: 'Measure every (seconds)',
      type: 'number',
      value: d?.sdi12?.pollSeconds ?? 300,
      when: is('sdi12'),
    },
    {
      name: 'mountHeightIn',
      label: 'Mounting height above the bottom (in)',
      type: 'number',
      value: d?.mountHeightIn,
      hint: 'the sensor measures the distance down to the surface; the level is this height minus it',
      when: needsHeight,
    },
  ];
}

/**
 * Keeps the profile select to the profiles of the way of connecting and of the kind chosen (a fixed kind
 * for a device edited), and the fields that follow it shown or hidden.
 */
export function followTransport(form: HTMLFormElement, list: ProfileSummary[], fixedKind?: string): void {
  const select = form.querySelector<HTMLSelectElement>('select[name="profile"]');
  const transport = form.querySelector<HTMLSelectElement>('select[name="transport"]');
  if (!select || !transport) return;
  const update = () => {
    const kind = fixedKind ?? form.querySelector<HTMLSelectElement>('select[name="kind"]')?.value ?? '';
    const fit = list.filter((p) => p.transport === transport.value && p.kinds.includes(kind));
    const chosen = select.value;
    select.replaceChildren(
      h('option', { value: '' }, fit.length ? 'Choose the sensor…' : 'No ready profile fits this kind'),
      ...fit.map((p) => h('option', { value: p.name, selected: p.name === chosen }, p.label)),
    );
    form.dispatchEvent(new Event('input'));
  };
  transport.addEventListener('change', update);
  form.querySelector('select[name="kind"]')?.addEventListener('change', update);
  update();
}
