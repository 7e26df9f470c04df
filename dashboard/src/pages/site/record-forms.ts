/**
 * The forms of the "Records" part of a construction site's page (town law 001): for the site's side a
 * contractor's certification with the law's statement, the SWPPP kept on site, a milestone's expected
 * date and the final stabilization; for the officer the final acceptance, the one-year inspection after it
 * and the confirmation of the final stabilization. Each form is shown only while its record can be made
 * (`standing`: one final stabilization, one confirmation, an inspection only after an acceptance).
 */
import { MILESTONE_IDS, MILESTONES } from '../../../../shared/src/api/milestones.ts';
import type { SiteRecordDto, SiteRecordStanding } from '../../../../shared/src/api/siteRecords.ts';
import { CERTIFICATION_STATEMENT, SITE_RECORD_LABELS } from '../../../../shared/src/api/siteRecordWords.ts';
import { describeError, post } from '../../api.js';
import { atLeast, isScoped, session } from '../../session.js';
import type { Site } from '../../state.js';
import { h } from '../../ui/dom.js';
import { formatTime, utcToZonedInput, zonedToUtc } from '../../ui/format.js';

/** Whether the person signed in may record for the site's side, or as the officer. */
function mayRecord(site: Site): { side: boolean; officer: boolean } {
  const me = session.me;
  if (!me) return { side: false, officer: false };
  const officer = me.role === 'inspector' || me.role === 'admin';
  const side = officer || (isScoped(me) && (me.sites ?? []).includes(site.id)) || atLeast(me, 'inspector');
  return { side, officer };
}

type Field = { input: HTMLInputElement | HTMLSelectElement; nodes: HTMLElement[] };

const field = (id: string, label: string, attrs: Record<string, unknown> = {}): Field => {
  const input = h('input', { id, required: true, ...attrs }) as HTMLInputElement;
  return { input, nodes: [h('label', { for: id }, label), input] };
};

const choice = (id: string, label: string, options: Array<[value: string, words: string]>): Field => {
  const input = h(
    'select',
    { id, required: true },
    options.map(([value, words]) => h('option', { value }, words)),
  ) as HTMLSelectElement;
  return { input, nodes: [h('label', { for: id }, label), input] };
};

/** What a recorded record is said to be, once stored: "Final acceptance recorded: …". */
const recorded = (r: SiteRecordDto) =>
  `${SITE_RECORD_LABELS[r.kind]} recorded: ${r.summary.replace(/\.$/, '')}.`;

/** A record's form: its fields, the body it posts (or the words refusing it), what it says once stored. */
function recordForm(
  site: Site,
  id: string,
  title: string,
  fields: Field[],
  body: () => Record<string, unknown> | string,
  done: (words: string) => void,
  opts: { intro?: HTMLElement; said?: (r: SiteRecordDto) => string } = {},
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
      done((opts.said ?? recorded)(r));
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
      opts.intro ?? null,
      ...fields.flatMap((f) => f.nodes),
      button,
      result,
    ),
  );
}

/** A time typed in the site's zone, as ISO, or nothing when none was typed. */
const timeOf = (input: Field['input'], tz: string): string | undefined => {
  const t = zonedToUtc(input.value, tz);
  return Number.isFinite(t) ? new Date(t).toISOString() : undefined;
};

const zoneNote = (site: Site) => h('p', { class: 'small muted' }, `Times are in ${site.timezone}.`);

function certificationForm(site: Site, nowInput: string, done: (w: string) => void): HTMLElement {
  const tz = site.timezone;
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
  return recordForm(
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
    { intro: h('blockquote', { class: 'statement small' }, `“${CERTIFICATION_STATEMENT}”`) },
  );
}

function swpppForm(site: Site, nowInput: string, done: (w: string) => void): HTMLElement {
  const s = {
    since: field('swppp-since', 'On site since', { type: 'datetime-local', value: nowInput }),
    keptBy: field('swppp-kept-by', 'Kept by'),
    where: field('swppp-where', 'Where on the site'),
  };
  return recordForm(
    site,
    'swppp-form',
    'Record that the SWPPP is kept on site',
    Object.values(s),
    () => {
      const since = timeOf(s.since.input, site.timezone);
      if (!since || !s.keptBy.input.value.trim() || !s.where.input.value.trim())
        return 'Say since when, by whom and where the SWPPP is kept.';
      return { kind: 'swppp', since, keptBy: s.keptBy.input.value, where: s.where.input.value };
    },
    done,
  );
}

function expectedMilestoneForm(site: Site, done: (w: string) => void): HTMLElement {
  const tz = site.timezone;
  const m = {
    milestone: choice(
      'expect-milestone',
      'Milestone',
      MILESTONE_IDS.map((id) => [id, MILESTONES[id]]),
    ),
    at: field('expect-at', 'Expected on (date and time)', { type: 'datetime-local' }),
  };
  return recordForm(
    site,
    'expect-form',
    'Record when a milestone is expected',
    Object.values(m),
    () => {
      const expectedAt = timeOf(m.at.input, tz);
      if (!expectedAt) return 'Choose the date and time the milestone is expected.';
      return { kind: 'expected-milestone', milestone: m.milestone.input.value, expectedAt };
    },
    done,
    {
      intro: h(
        'p',
        { class: 'small muted' },
        `The town must be told at least 48 hours before each milestone. A milestone whose date passes with no notice is flagged below. A later date for the same milestone replaces the earlier one. Times are in ${tz}.`,
      ),
      said: (r) =>
        `Expected milestone recorded: ${r.summary}, on ${formatTime(r.at, tz)}. Notify the town at least 48 hours before.`,
    },
  );
}

function stabilizationForm(site: Site, nowInput: string, done: (w: string) => void): HTMLElement {
  const s = {
    at: field('stab-at', 'Finally stabilized on (date and time)', {
      type: 'datetime-local',
      value: nowInput,
    }),
    description: field(
      'stab-description',
      'What stabilizes the site (for example: grass established, paved)',
    ),
  };
  return recordForm(
    site,
    'stab-form',
    'Record the final stabilization of the site',
    Object.values(s),
    () => {
      const stabilizedAt = timeOf(s.at.input, site.timezone);
      if (!stabilizedAt || !s.description.input.value.trim())
        return 'Say when the site was finally stabilized and what stabilizes it.';
      return { kind: 'final-stabilization', stabilizedAt, description: s.description.input.value };
    },
    done,
    {
      intro: h(
        'p',
        { class: 'small muted' },
        'From this date the SWPPP no longer has to be kept on site. It is recorded once; the town may then confirm it.',
      ),
    },
  );
}

function officerForms(
  site: Site,
  nowInput: string,
  standing: SiteRecordStanding | null,
  done: (w: string) => void,
): HTMLElement[] {
  const tz = site.timezone;
  const out: HTMLElement[] = [];
  const oneYear = standing?.oneYear ?? null;
  if (!oneYear || oneYear.inspection) {
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
  } else {
    const i = {
      at: field('oneyear-at', 'Inspected on', { type: 'datetime-local', value: nowInput }),
      acceptable: choice('oneyear-acceptable', 'The facilities were', [
        ['yes', 'found acceptable'],
        ['no', 'not found acceptable'],
      ]),
      note: field('oneyear-note', 'Note (optional)', { required: false }),
    };
    out.push(
      recordForm(
        site,
        'oneyear-form',
        'Record the one-year inspection',
        Object.values(i),
        () => {
          const inspectedAt = timeOf(i.at.input, tz);
          if (!inspectedAt) return 'Choose the date of the inspection.';
          return {
            kind: 'one-year-inspection',
            inspectedAt,
            acceptable: i.acceptable.input.value === 'yes',
            note: i.note.input.value,
          };
        },
        done,
      ),
    );
  }
  const stab = standing?.stabilization;
  if (stab && !stab.confirmation) {
    const c = {
      at: field('confirm-at', 'Confirmed on', { type: 'datetime-local', value: nowInput }),
      note: field('confirm-note', 'Note (optional)', { required: false }),
    };
    out.push(
      recordForm(
        site,
        'confirm-form',
        'Confirm the final stabilization',
        Object.values(c),
        () => {
          const confirmedAt = timeOf(c.at.input, tz);
          if (!confirmedAt) return 'Choose the date of the confirmation.';
          return {
            kind: 'stabilization-confirmation',
            confirms: stab.recordId,
            confirmedAt,
            note: c.note.input.value,
          };
        },
        done,
        {
          intro: h(
            'p',
            { class: 'small muted' },
            `Recorded by ${stab.recordedBy}: finally stabilized on ${formatTime(stab.stabilizedAt, tz)}.`,
          ),
          said: (r) => `The final stabilization is confirmed, on ${formatTime(r.at, tz)}.`,
        },
      ),
    );
  }
  return out;
}

/** The forms the person signed in may fill, as the records stand. */
export function recordForms(
  site: Site,
  now: number,
  standing: SiteRecordStanding | null,
  done: (w: string) => void,
): HTMLElement[] {
  const { side, officer } = mayRecord(site);
  const nowInput = utcToZonedInput(now, site.timezone);
  const out: HTMLElement[] = [];
  if (side) {
    out.push(certificationForm(site, nowInput, done), swpppForm(site, nowInput, done));
    out.push(expectedMilestoneForm(site, done));
    if (standing && !standing.stabilization) out.push(stabilizationForm(site, nowInput, done));
  }
  if (officer) out.push(...officerForms(site, nowInput, standing, done));
  if (out.length > 0) out.unshift(zoneNote(site));
  return out;
}
