/** Sites (admin): add a site, edit one (`ui/site-form.ts`), a link to its devices. */
import { type Body, post } from '../../api.js';
import { loadAll, state } from '../../state.js';
import { byId, h, SITE_KINDS } from '../../ui/dom.js';
import { buildForm, fill, table } from '../../ui/form.js';
import { browserZone, editSite, inSiteZone, siteCreate, siteFields } from '../../ui/site-form.js';

export type Site = import('../../state.js').Site;

export async function loadManageSites() {
  const { form } = buildForm({
    id: 'site-add',
    submitLabel: 'Add site',
    schema: siteCreate,
    fields: await siteFields(undefined, true),
    submit: async (v) => {
      const made = await post('POST /api/sites', {
        body: inSiteZone(
          v,
          typeof v.timezone === 'string' ? v.timezone : browserZone(),
        ) as Body<'POST /api/sites'>,
      });
      form.reset();
      await loadAll();
      await listSites();
      return `Added site ${made.id}. Add its devices next.`;
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
        h(
          'button',
          { type: 'button', class: 'secondary', onclick: () => void editSite(s, listSites) },
          'Edit',
        ),
      ]),
      (i) => ({ 'data-manage-site': state.sites[i]?.id ?? '' }),
    ),
  );
}
