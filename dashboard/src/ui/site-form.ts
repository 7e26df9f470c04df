/**
 * A site's form: its kind, name, time zone, rule parameters, parties and history on record, to add a site
 * (the Sites page) or edit one in the edit dialog (the Sites page, a construction site's page).
 */
import { type Body, get, getPage, patch } from '../api.js';
import { loadAll, state } from '../state.js';
import { closeEditor, openEditor } from './dialogs.js';
import { h, SITE_KINDS } from './dom.js';
import { buildForm, schemaNamed } from './form.js';
import { formatTime, utcToZonedInput, zonedToUtc } from './format.js';
import { lawFigures, reasonsCheck, withReasons } from './law-figures.js';
import { jsonSchemaOf, paramFields, paramWordsOf, words } from './params.js';

export type Site = import('../state.js').Site;
export type Field = import('./form.js').Field;

/** Members of a site that are not rule parameters, each with a field of its own (or none in these forms). */
const OWN = [
  'id',
  'name',
  'kind',
  'timezone',
  'active',
  'recipients',
  'devices',
  'history',
  'practices',
  'landowner',
  'developer',
  'address',
  'developerInspectors',
  'stopWork',
  'lawOverrides',
];
const HISTORY = 'History on record (before the gateway)';
const PARTIES = 'Landowner, developer and address (construction sites)';
const INSPECTORS = 'Inspectors acting for the developer or owner';
export const browserZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone;

const siteParams = () => schemaNamed('siteParams');
/** A new site's checks: the API's schemas, and a reason for each figure looser than the law. */
export const siteCreate = async () => [
  await schemaNamed('siteCreateBody'),
  await siteParams(),
  reasonsCheck(await lawFigures(), undefined),
];
const sitePatch = async (site: Site) => [
  await schemaNamed('sitePatchBody'),
  await siteParams(),
  reasonsCheck(await lawFigures(), site),
];
const kinds = () => Object.entries(SITE_KINDS);

/**
 * The site's own fields, then its rule parameters from the schema.
 */
export async function siteFields(site: Site | undefined, creating: boolean): Promise<Field[]> {
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
  // A figure set looser than the law asks for its reason (`law-figures.ts`).
  const rules = state.rules.length ? state.rules : await get('GET /api/rules');
  const said = paramWordsOf(rules);
  const params = js ? withReasons(paramFields(js, OWN, site, undefined, said), await lawFigures(), site) : [];
  return [
    ...own,
    ...params,
    ...partyFields(site),
    inspectorsField(site),
    ...(await historyFields(site, zone)),
  ];
}

/**
 * The town's accounts that record the developer's (or owner's) inspections of the site: any other town
 * account records the town's own, which meets none of the developer's duties.
 */
function inspectorsField(site: Site | undefined): Field {
  return {
    name: 'developerInspectors',
    label: 'Town accounts that inspect for the developer or owner',
    type: 'lines',
    value: site?.developerInspectors,
    hint: "One e-mail address a line: an inspector they hired, or a clerk entering their reports on paper. Only these (and the owner's and contractor's own accounts) record the developer's side of an inspection.",
    group: INSPECTORS,
  };
}

/**
 * To whom a notice of violation is directed and where it is served: each party's name, postal address
 * and e-mail, and the address of the land, filled with what is on record.
 */
function partyFields(site: Site | undefined): Field[] {
  const of = (key: 'landowner' | 'developer', label: string): Field[] => [
    { name: `${key}.name`, label: `${label}: name`, value: site?.[key]?.name, group: PARTIES },
    {
      name: `${key}.address`,
      label: `${label}: postal address`,
      value: site?.[key]?.address,
      group: PARTIES,
    },
    {
      name: `${key}.email`,
      label: `${label}: e-mail (optional)`,
      type: 'email',
      value: site?.[key]?.email,
      hint: 'Notices are also sent here.',
      group: PARTIES,
    },
  ];
  return [
    ...of('landowner', 'Landowner'),
    ...of('developer', 'Developer'),
    {
      name: 'address',
      label: 'Address or description of the land',
      value: site?.address,
      group: PARTIES,
    },
  ];
}

/**
 * The site's history on record, a time field per event of the schema's (`siteHistory`), entered in the
 * site's time zone; an edit shows the time on record beside its field (an empty field keeps it).
 */
async function historyFields(site: Site | undefined, zone: string): Promise<Field[]> {
  const js = await jsonSchemaOf(await schemaNamed('siteHistory'));
  const props: Record<string, { description?: string }> = js?.properties ?? {};
  const known = (site?.history ?? {}) as Record<string, string | undefined>;
  return Object.entries(props).map(([key, p]) => {
    const label = words(key);
    const on = known[key];
    return {
      name: `history.${key}`,
      label: label.charAt(0).toUpperCase() + label.slice(1),
      type: 'datetime',
      hint: [p.description, on ? `On record: ${formatTime(on, zone)}.` : '', "In the site's time zone."]
        .filter(Boolean)
        .join(' '),
      group: HISTORY,
    } satisfies Field;
  });
}

/**
 * The form's history times, read as the browser's wall clock, as the same wall-clock time in the site's
 * zone.
 */
export function inSiteZone(v: Record<string, unknown>, zone: string): Record<string, unknown> {
  const h = v.history as Record<string, string> | undefined;
  if (!h) return v;
  const out: Record<string, string> = {};
  for (const [k, t] of Object.entries(h)) {
    const ms = zonedToUtc(utcToZonedInput(Date.parse(t), browserZone()), zone);
    out[k] = Number.isFinite(ms) ? new Date(ms).toISOString() : t;
  }
  return { ...v, history: out };
}

/** Pages of a site's change records read, at most, for its newest record of the site itself. */
const PARAMS_PAGES = 20;

/**
 * A site's rule parameters as they stand: the newest change record of the site holds its whole value (the
 * sites list does not), so the edit form shows them and a parameter is sent back whole. The records come
 * newest first, a page at a time, its devices' and releases' among them: the pages are read until one
 * holds a record of the site itself.
 */
async function currentParams(siteId: string): Promise<Record<string, unknown>> {
  try {
    let page = await getPage('GET /api/changes', { query: { siteId, limit: 500 } });
    for (let n = 1; ; n++) {
      const last = page.items
        .filter((c) => c.entity === 'site' && c.new && typeof c.new === 'object')
        .sort((a, b) => b.logIndex - a.logIndex)[0];
      if (last) return last.new as Record<string, unknown>;
      if (!page.next || n >= PARAMS_PAGES) return {};
      page = await getPage('GET /api/changes', { next: page.next });
    }
  } catch (e) {
    console.warn(`the parameters of ${siteId} could not be read; empty fields keep them`, e);
    return {};
  }
}

/** The site's edit form in the edit dialog; `after` runs once a change is saved. */
export async function editSite(site: Site, after?: () => Promise<void> | void) {
  const known = { ...(await currentParams(site.id)), ...site };
  const { form } = buildForm({
    id: 'site-edit',
    className: 'form',
    submitLabel: 'Save changes',
    schema: () => sitePatch(known),
    fields: await siteFields(known, false),
    submit: async (v) => {
      await patch('PATCH /api/sites/:id', {
        params: { id: site.id },
        body: inSiteZone(v, site.timezone) as Body<'PATCH /api/sites/:id'>,
      });
      closeEditor();
      await loadAll();
      await after?.();
      return 'Saved.';
    },
  });
  openEditor(
    `Edit ${site.name}`,
    h('p', { class: 'small muted' }, 'Empty fields keep their value. Every change is recorded.'),
    form,
  );
}
