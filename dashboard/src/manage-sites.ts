/** Sites (admin): add a site, edit its kind, name, time zone and rule parameters; a link to its devices. */
import { get, patch, post } from './api.js';
import { closeEditor, openEditor } from './dialogs.js';
import { byId, h, SITE_KINDS } from './dom.js';
import { buildForm, fill, schemaNamed, table } from './form.js';
import { jsonSchemaOf, paramFields } from './params.js';
import { listOf } from './people.js';
import { loadAll, state } from './state.js';

export type Site = import('./state.js').Site;
export type Field = import('./form.js').Field;

/** Members of a site that are not rule parameters, each with a field of its own (or none in these forms). */
const OWN = ['id', 'name', 'kind', 'timezone', 'active', 'recipients', 'devices'];

const siteParams = () => schemaNamed('siteParams');
const siteCreate = async () => [await schemaNamed('siteCreateBody'), await siteParams()];
const sitePatch = async () => [await schemaNamed('sitePatchBody'), await siteParams()];
const kinds = () => Object.entries(SITE_KINDS);

/**
 * The site's own fields, then its rule parameters from the schema.
 */
async function siteFields(site: Site | undefined, creating: boolean): Promise<Field[]> {
  const js = await jsonSchemaOf(await siteParams());
  const zone = site?.timezone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;

  const own: Field[] = [
    ...(creating
      ? [
          {
            name: 'id',
            label: 'Site id',
            hint: 'letters, digits, "_", "." and "-"; it names the MQTT topics',
          },
        ]
      : []),
    { name: 'name', label: 'Name', value: site?.name },
    { name: 'kind', label: 'Kind', type: 'select', options: kinds(), value: site?.kind ?? 'construction' },
    {
      name: 'timezone',
      label: 'Time zone',
      value: creating ? undefined : zone,
      hint: 'e.g. America/New_York',
    },
  ];
  const params = js ? paramFields(js, OWN, site) : [];
  return [...own, ...params];
}

/**
 * A site's rule parameters as they stand: the newest change record of the site holds its whole value (the
 * sites list does not), so the edit form shows them and a parameter is sent back whole.
 */
async function currentParams(siteId: string): Promise<Record<string, unknown>> {
  try {
    const changes: Array<{ entity: string; logIndex: number; new: unknown }> = listOf(
      await get('/api/changes', { siteId }),
      'changes',
    );
    const last = changes
      .filter((c) => c.entity === 'site' && c.new && typeof c.new === 'object')
      .sort((a, b) => b.logIndex - a.logIndex)[0];
    return (last?.new ?? {}) as Record<string, unknown>;
  } catch (e) {
    console.warn(`the parameters of ${siteId} could not be read; empty fields keep them`, e);
    return {};
  }
}

async function editSite(site: Site) {
  const { form } = buildForm({
    id: 'site-edit',
    className: 'form',
    submitLabel: 'Save changes',
    schema: sitePatch,
    fields: await siteFields({ ...(await currentParams(site.id)), ...site }, false),
    submit: async (v) => {
      await patch(`/api/sites/${encodeURIComponent(site.id)}`, v);
      closeEditor();
      await loadAll();
      await listSites();
      return 'Saved.';
    },
  });
  openEditor(
    `Edit ${site.name}`,
    h('p', { class: 'small muted' }, 'Empty fields keep their value. Every change is recorded.'),
    form,
  );
}

export async function loadManageSites() {
  const { form } = buildForm({
    id: 'site-add',
    submitLabel: 'Add site',
    schema: siteCreate,
    fields: await siteFields(undefined, true),
    submit: async (v) => {
      const made: Site | null = await post('/api/sites', v);
      form.reset();
      await loadAll();
      await listSites();
      return `Added site ${made?.id ?? v.id}. Add its devices next.`;
    },
  });
  const details = h(
    'details',
    { class: 'card add-box', id: 'site-add-box' },
    h('summary', null, 'Add a site'),
    h('p', { class: 'small muted' }, 'Rule parameters left empty take the defaults of the rules.'),
    form,
  );
  byId('manage-add').replaceChildren(details);
  await listSites();
}

async function listSites() {
  await fill(byId('manage-list'), async () =>
    table(
      ['Site', 'Kind', 'Time zone', 'Devices', ''],
      state.sites.map((s) => [
        h('a', { href: `#/site/${encodeURIComponent(s.id)}` }, s.name),
        SITE_KINDS[s.kind] ?? s.kind,
        s.timezone,
        h(
          'a',
          { href: `#/devices/${encodeURIComponent(s.id)}` },
          `${s.devices.length} device${s.devices.length === 1 ? '' : 's'}`,
        ),
        h('button', { type: 'button', class: 'secondary', onclick: () => void editSite(s) }, 'Edit'),
      ]),
      (i) => ({ 'data-manage-site': state.sites[i]?.id ?? '' }),
    ),
  );
}
