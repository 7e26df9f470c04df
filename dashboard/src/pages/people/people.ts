/** People (admin): the accounts with their roles and sites; add, edit role and sites, disable. */
import type { UserResponse } from '../../../../shared/src/admin.ts';
import { type Body, get, patch, post } from '../../api.js';
import { state } from '../../state.js';
import { closeEditor, openEditor } from '../../ui/dialogs.js';
import { badge, byId, h } from '../../ui/dom.js';
import { buildForm, fill, schemaNamed, table } from '../../ui/form.js';

/** A person as GET /api/users answers (the contract's shape); older gateways sent `active`. */
export type Person = UserResponse & { active?: boolean };

/** Roles a person may have; owners and contractors are kept to the sites they are given. */
export const PERSON_ROLES = ['viewer', 'inspector', 'engineer', 'admin', 'owner', 'contractor'];
const ROLE_LABELS = {
  viewer: 'Viewer',
  inspector: 'Inspector',
  engineer: 'Engineer',
  admin: 'Administrator',
  owner: 'Owner (own sites only)',
  contractor: 'Contractor (own sites only)',
} as Record<string, string>;
const SCOPED = new Set(['owner', 'contractor']);

const isDisabled = (p: Person) => p.disabled === true || p.active === false;

/** The roles the API's schema allows, in the order above. */
async function roleOptions() {
  const s = await schemaNamed('userCreateBody');
  const allowed = PERSON_ROLES.filter((r) => {
    if (!s) return r !== 'contractor';
    const probe = (s as any).shape?.role;
    return probe ? probe.safeParse(r).success : r !== 'contractor';
  });
  return allowed.map((r) => [r, ROLE_LABELS[r] ?? r] as [string, string]);
}

const siteOptions = () => state.sites.map((s) => [s.id, `${s.name} (${s.id})`] as [string, string]);

const scoped = (v: Record<string, unknown>) => SCOPED.has(String(v.role ?? ''));

/**
 * The body without sites unless the role is scoped to them (an empty list then, if none was ticked).
 */
function withSites(v: Record<string, any>) {
  const { sites, ...rest } = v;
  return scoped(v) ? { ...rest, sites: sites ?? [] } : rest;
}

async function editPerson(p: Person) {
  const roles = await roleOptions();
  const { form } = buildForm({
    id: 'person-edit',
    className: 'form',
    submitLabel: 'Save changes',
    schema: () => schemaNamed('userPatchBody'),
    fields: [
      { name: 'name', label: 'Name', value: p.name },
      { name: 'role', label: 'Role', type: 'select', options: roles, value: p.role },
      {
        name: 'sites',
        label: 'Sites',
        type: 'checks',
        options: siteOptions(),
        value: p.sites ?? [],
        when: scoped,
      },
      {
        name: 'disabled',
        label: 'Disabled (cannot sign in; their tokens stop working)',
        type: 'checkbox',
        value: isDisabled(p),
      },
    ],
    submit: async (v) => {
      await patch('PATCH /api/users/:id', { params: { id: p.id }, body: withSites(v) });
      closeEditor();
      await listPeople();
      return 'Saved.';
    },
  });
  openEditor(`Edit ${p.name}`, h('p', { class: 'muted small' }, p.email), form);
}

export async function loadPeople() {
  const roles = await roleOptions();
  const { form } = buildForm({
    id: 'person-add',
    submitLabel: 'Add person',
    schema: () => schemaNamed('userCreateBody'),
    fields: [
      { name: 'name', label: 'Name' },
      { name: 'email', label: 'E-mail', type: 'email' },
      { name: 'role', label: 'Role', type: 'select', options: roles, value: 'viewer' },
      {
        name: 'sites',
        label: 'Sites they may see and act on',
        type: 'checks',
        options: siteOptions(),
        when: scoped,
      },
      {
        name: 'password',
        label: 'First password',
        type: 'password',
        hint: 'Tell them in person; they can change it after signing in.',
      },
    ],
    submit: async (v) => {
      const made = await post('POST /api/users', { body: withSites(v) as Body<'POST /api/users'> });
      form.reset();
      form.dispatchEvent(new Event('change'));
      await listPeople();
      return `Added ${made.name}.`;
    },
  });
  byId('people-add').replaceChildren(h('h3', null, 'Add a person'), form);
  await listPeople();
}

async function listPeople() {
  await fill(byId('people-list'), async () => {
    const people: Person[] = await get('GET /api/users');
    const siteName = (id: string) => state.sites.find((s) => s.id === id)?.name ?? id;
    return table(
      ['Name', 'E-mail', 'Role', 'Sites', 'Status', ''],
      people.map((p) => [
        p.name,
        p.email,
        ROLE_LABELS[p.role] ?? p.role,
        SCOPED.has(p.role) ? (p.sites ?? []).map(siteName).join(', ') || '—' : 'all',
        isDisabled(p) ? badge('disabled', 'bad') : badge('active', 'ok'),
        h('button', { type: 'button', class: 'secondary', onclick: () => void editPerson(p) }, 'Edit'),
      ]),
      (i) => ({ 'data-person': String(people[i]?.email ?? '') }),
    );
  });
}
