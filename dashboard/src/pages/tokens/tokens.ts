/** Personal API tokens: create one (shown once), list them, revoke. */
import type { z } from 'zod';
import type { tokenResponse } from '../../../../shared/src/admin.ts';
import { type Body, del, describeError, get, post } from '../../api.js';
import { homeZone } from '../../state.js';
import { showSecret } from '../../ui/dialogs.js';
import { badge, byId, h } from '../../ui/dom.js';
import { buildForm, fill, schemaNamed, table } from '../../ui/form.js';
import { formatTime, utcToZonedInput, zonedToUtc } from '../../ui/format.js';

/** A token as GET /api/tokens answers (the contract's shape). */
export type TokenRow = z.infer<typeof tokenResponse> & { revoked?: boolean };

/** Tokens belong to no site: their times are in the gateway's zone (`homeZone`), named. */
const zone = () => homeZone();
const browserZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone;
const when = (t: string | null | undefined) => (t ? formatTime(t, zone()) : '—');

function state(t: TokenRow) {
  if (t.revoked || t.revokedAt) return badge('revoked', 'bad');
  if (t.expiresAt && Date.parse(t.expiresAt) < Date.now()) return badge('expired', 'warn');
  return badge('active', 'ok');
}

export async function loadTokens() {
  const { form } = buildForm({
    id: 'token-add',
    submitLabel: 'Create token',
    schema: () => schemaNamed('tokenCreateBody'),
    fields: [
      { name: 'name', label: 'Name', hint: 'what it is for, e.g. field-tablet; it is named in the history' },
      {
        name: 'expiresAt',
        label: 'Expires',
        type: 'datetime',
        value: utcToZonedInput(Date.now() + 90 * 86_400_000, zone())
          .slice(0, 10)
          .concat('T00:00'),
        hint: `${zone()} time`,
      },
    ],
    submit: async (v) => {
      // The field's wall-clock time, read by the form as the browser's, is meant in the gateway's zone.
      const at = typeof v.expiresAt === 'string' ? Date.parse(v.expiresAt) : Number.NaN;
      const body = Number.isFinite(at)
        ? { ...v, expiresAt: new Date(zonedToUtc(utcToZonedInput(at, browserZone()), zone())).toISOString() }
        : v;
      const r = await post('POST /api/tokens', { body: body as Body<'POST /api/tokens'> });
      showSecret(
        `API token ${r.name}`,
        [['Token', r.token]],
        'Send it as "Authorization: Bearer <token>"; it acts with your role and sites.',
      );
      form.reset();
      await listTokens();
      return `Created ${v.name}.`;
    },
  });
  byId('tokens-add').replaceChildren(h('h3', null, 'Create a token'), form);
  await listTokens();
}

async function listTokens() {
  const out = byId('tokens-status');
  await fill(byId('tokens-list'), async () => {
    const tokens: TokenRow[] = await get('GET /api/tokens');
    return table(
      ['Name', 'Created', 'Expires', 'Last used', 'Status', ''],
      tokens.map((t) => [
        t.name,
        when(t.createdAt),
        when(t.expiresAt),
        when(t.lastUsedAt),
        state(t),
        t.revoked || t.revokedAt
          ? ''
          : h(
              'button',
              {
                type: 'button',
                class: 'danger',
                onclick: async () => {
                  try {
                    await del('DELETE /api/tokens/:id', { params: { id: t.id } });
                    out.textContent = `Revoked ${t.name}: it no longer works.`;
                    out.className = 'msg msg-ok';
                    await listTokens();
                  } catch (e) {
                    out.textContent = describeError(e);
                    out.className = 'msg msg-bad';
                  }
                },
              },
              'Revoke',
            ),
      ]),
      (i) => ({ 'data-token': tokens[i]?.name ?? '' }),
    );
  });
}
