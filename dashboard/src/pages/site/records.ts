/**
 * The "Records" part of a construction site's page (town law 001): the developer's records on file (each
 * contractor's certification, the SWPPP kept on site, expected milestones, the final acceptance and the
 * one-year inspection), the forms the site's side fills (a certification with the law's statement, the
 * SWPPP) and the officer's (final acceptance). Drawn once per site and person; again after a record.
 */

import type { SiteRecordDto } from '../../../../shared/src/api/siteRecords.ts';
import { CERTIFICATION_STATEMENT, SITE_RECORD_LABELS } from '../../../../shared/src/api/siteRecordWords.ts';
import { describeError, get, post } from '../../api.js';
import { atLeast, isScoped, session } from '../../session.js';
import type { Site } from '../../state.js';
import { byId, h, replace } from '../../ui/dom.js';
import { formatTime, utcToZonedInput, zonedToUtc } from '../../ui/format.js';

/** Whether the person signed in may record for the site's side, or as the officer. */
function mayRecord(site: Site): { side: boolean; officer: boolean } {
  const me = session.me;
  if (!me) return { side: false, officer: false };
  const officer = me.role === 'inspector' || me.role === 'admin';
  const side = officer || (isScoped(me) && (me.sites ?? []).includes(site.id)) || atLeast(me, 'inspector');
  return { side, officer };
}

const field = (id: string, label: string, attrs: Record<string, unknown> = {}) => {
  const input = h('input', { id, required: true, ...attrs }) as HTMLInputElement;
  return { input, nodes: [h('label', { for: id }, label), input] };
};

/** A record's form: its fields, the body it posts, its button's words. */
function recordForm(
  site: Site,
  id: string,
  title: string,
  fields: Array<ReturnType<typeof field>>,
  body: () => Record<string, unknown> | string,
  done: (words: string) => void,
  intro?: HTMLElement,
): HTMLElement {
  const result = h('p', { class: 'msg', role: 'status', 'aria-live': 'polite' });
  const button = h('button', { type: 'submit' }, 'Record') as HTMLButtonElement;
  const submit = async (e: Event) => {
    e.preventDefault();
    const b = body();
    if (typeof b === 'string') {
      result.textContent = b;
      result.className = 'msg text-bad';
      return;
    }
    button.disabled = true;
    try {
      const r = await post('POST /api/sites/:id/records', { params: { id: site.id }, body: b as never });
      done(`${SITE_RECORD_LABELS[r.kind]} recorded: ${r.summary}.`);
    } catch (err) {
      result.textContent = describeError(err);
      result.className = 'msg text-bad';
      button.disabled = false;
    }
  };
  return h(
    'details',
    { class: 'card record-form' },
    h('summary', null, title),
    h(
      'form',
      { id, class: 'form', novalidate: true, onsubmit: (e: Event) => void submit(e) },
      intro ?? null,
      ...fields.flatMap((f) => f.nodes),
      button,
      result,
    ),
  );
}

/** A time typed in the site's zone, as ISO, or the words asking for it. */
const timeOf = (input: HTMLInputElement, tz: string): string | undefined => {
  const t = zonedToUtc(input.value, tz);
  return Number.isFinite(t) ? new Date(t).toISOString() : undefined;
};

function forms(site: Site, now: number, done: (w: string) => void): HTMLElement[] {
  const { side, officer } = mayRecord(site);
  const tz = site.timezone;
  const nowInput = utcToZonedInput(now, tz);
  const out: HTMLElement[] = [];
  if (side) {
    const f = {
      name: field('rec-name', 'Name of the person signing'),
      title: field('rec-title', 'Their title'),
      firm: field('rec-firm', 'Contracting firm'),
      firmAddress: field('rec-firm-address', "Firm's address"),
      telephone: field('rec-phone', "Firm's telephone", { type: 'tel' }),
      siteAddress: field('rec-site-address', 'Address or description of the site', {
        value: site.address ?? site.name,
      }),
      signedAt: field('rec-signed', 'Signed on (date and time)', { type: 'datetime-local', value: nowInput }),
    };
    out.push(
      recordForm(
        site,
        'cert-form',
        "Record a contractor's certification",
        Object.values(f),
        () => {
          const signedAt = timeOf(f.signedAt.input, tz);
          const empty = Object.values(f).find((x) => !x.input.value.trim());
          if (empty || !signedAt) return 'Fill in every line of the certification, as signed.';
          return {
            kind: 'certification',
            statement: CERTIFICATION_STATEMENT,
            name: f.name.input.value,
            title: f.title.input.value,
            firm: f.firm.input.value,
            firmAddress: f.firmAddress.input.value,
            telephone: f.telephone.input.value,
            siteAddress: f.siteAddress.input.value,
            signedAt,
          };
        },
        done,
        h('blockquote', { class: 'statement small' }, `“${CERTIFICATION_STATEMENT}”`),
      ),
    );
    const s = {
      since: field('swppp-since', 'On site since', { type: 'datetime-local', value: nowInput }),
      keptBy: field('swppp-kept-by', 'Kept by'),
      where: field('swppp-where', 'Where on the site'),
    };
    out.push(
      recordForm(
        site,
        'swppp-form',
        'Record that the SWPPP is kept on site',
        Object.values(s),
        () => {
          const since = timeOf(s.since.input, tz);
          if (!since || !s.keptBy.input.value.trim() || !s.where.input.value.trim())
            return 'Say since when, by whom and where the SWPPP is kept.';
          return { kind: 'swppp', since, keptBy: s.keptBy.input.value, where: s.where.input.value };
        },
        done,
      ),
    );
  }
  if (officer) {
    const a = { at: field('accept-at', 'Accepted on', { type: 'datetime-local', value: nowInput }) };
    out.push(
      recordForm(
        site,
        'accept-form',
        'Record the final acceptance (opens the one-year inspection)',
        Object.values(a),
        () => {
          const acceptedAt = timeOf(a.at.input, tz);
          return acceptedAt ? { kind: 'final-acceptance', acceptedAt } : 'Choose the date of the acceptance.';
        },
        done,
      ),
    );
  }
  return out;
}

function list(site: Site, records: SiteRecordDto[]): HTMLElement {
  if (records.length === 0) return h('p', { class: 'muted' }, 'No records on file yet.');
  return h(
    'ul',
    { class: 'records' },
    records.map((r) =>
      h(
        'li',
        { 'data-record': r.kind },
        h('strong', null, SITE_RECORD_LABELS[r.kind]),
        ` — ${formatTime(r.at, site.timezone)}: ${r.summary}`,
        h('br'),
        h(
          'small',
          { class: 'muted' },
          `recorded ${formatTime(r.recordedAt, site.timezone)} by ${r.recordedBy}`,
        ),
      ),
    ),
  );
}

let lastWords = '';

/** Draws the part for a construction site (nothing for another kind). */
export function renderRecords(site: Site, reload: () => Promise<void>) {
  const box = byId('site-records');
  const key = `${site.id}|${session.me?.name ?? ''}|${session.me?.role ?? ''}`;
  if (site.kind !== 'construction') {
    box.dataset.for = '';
    replace(box);
    return;
  }
  if (box.dataset.for === key) return;
  box.dataset.for = key;
  void draw(box, site, key, reload);
}

async function draw(box: HTMLElement, site: Site, key: string, reload: () => Promise<void>) {
  const records = await get('GET /api/sites/:id/records', { params: { id: site.id } }).catch((e: unknown) =>
    describeError(e),
  );
  if (box.dataset.for !== key) return;
  const words = lastWords;
  lastWords = '';
  const done = (w: string) => {
    lastWords = w;
    box.dataset.for = '';
    void reload();
  };
  replace(
    box,
    h('h3', { id: 'records-h' }, 'Records'),
    h(
      'p',
      { id: 'records-result', class: words ? 'msg msg-ok' : 'msg', role: 'status', 'aria-live': 'polite' },
      words,
    ),
    typeof records === 'string' ? h('p', { class: 'msg msg-bad' }, records) : list(site, records),
    ...forms(site, Date.now(), done),
  );
}
