/**
 * A site's notices of violation, each under the law of the site (town law 001, Enforcement; town law 000,
 * Sections 5.100 B and 5.010): each with its status in words, the remedy's due time in the site's zone
 * ("in 3 days", "2 days overdue"), its service and the appeal window in the site's local days ("not yet
 * served; the appeal window has not started", "may be appealed until the end of June 16, 2026", or
 * closed), its steps, and the notice itself. The site's owner or contractor may appeal (within the law's
 * days of service) and report it corrected with photos; an inspector records its service by mail or in
 * person, the appeal's hearing where the law has one, and approves a reported correction on its
 * re-inspection (`correction-forms.ts`).
 */
import { lawOf, lawOfNotice, orderKindOf } from '../../../../shared/src/api/enforcementLaws.ts';
import {
  isClosed,
  VIOLATION_STATUS_LABELS,
  type ViolationStatus,
} from '../../../../shared/src/api/enforcementWords.ts';
import {
  appealWindowWords,
  endOfDay,
  STEP_KIND_WORDS,
  stepDetailWords,
} from '../../../../shared/src/api/serviceWords.ts';
import type { ViolationDto, ViolationEvent } from '../../../../shared/src/api/violations.ts';
import { getAll, post } from '../../api.js';
import { isAdmin, isScoped, session } from '../../session.js';
import type { Site } from '../../state.js';
import { badge, h } from '../../ui/dom.js';
import { dueInWords, formatTime, shortDate } from '../../ui/format.js';
import { approveForm, correctedForm, stepExtras } from './correction-forms.js';
import { noteForm } from './note-form.js';
import { hearingForm, partyNames, serviceForm } from './violation-service.js';

export async function loadViolations(siteId: string): Promise<ViolationDto[]> {
  const all = await getAll('GET /api/violations', { query: { siteId } });
  return [...all].sort((a, b) => Date.parse(b.issuedAt) - Date.parse(a.issuedAt));
}

/** The town's officer: an inspector or an admin (engineers neither issue nor approve notices). */
export const isOfficer = () => session.me?.role === 'inspector' || session.me?.role === 'admin';

/** The site's owner or contractor (or an admin): the "developer or owner" the law lets appeal. */
export function isPartyOf(site: Site): boolean {
  const me = session.me;
  if (!me) return false;
  return isAdmin(me) || (isScoped(me) && (me.sites ?? []).includes(site.id));
}

const STATUS_BADGE: Record<ViolationStatus, string> = {
  issued: 'bad',
  appealed: 'warn',
  corrected: 'info',
  approved: 'ok',
  reversed: 'ok',
};

function dueLine(v: ViolationDto, tz: string, now: number) {
  const due = h('time', { datetime: v.remedyDueAt }, formatTime(v.remedyDueAt, tz));
  if (v.status === 'approved') {
    const approved = v.events.find((e) => e.kind === 'approved');
    return h(
      'p',
      { class: 'violation-due' },
      'Remedy was due ',
      due,
      approved ? `; approved ${shortDate(approved.at, tz, now)}` : '',
      v.onTime === undefined ? '.' : v.onTime ? ', on time.' : ', late.',
    );
  }
  const late = Date.parse(v.remedyDueAt) < now;
  return h(
    'p',
    { class: 'violation-due' },
    'Remedy due ',
    due,
    ' ',
    h('strong', { class: late ? 'text-bad' : '' }, `(${dueInWords(v.remedyDueAt, now)})`),
  );
}

const appealed = (v: ViolationDto) => v.events.some((e) => e.kind === 'appealed');
/** Open before service (the window has not started) and until its end. */
const appealOpen = (v: ViolationDto, now: number) => v.appealBy === undefined || now < Date.parse(v.appealBy);

function appealLine(v: ViolationDto, tz: string, now: number) {
  const a = v.events.find((e) => e.kind === 'appealed');
  const window = appealWindowWords(v, tz);
  if (a)
    return h(
      'p',
      { class: 'violation-appeal' },
      `${window} Appealed ${shortDate(a.at, tz, now)} to ${lawOf(v.law).appealTo}.`,
    );
  return h(
    'p',
    { class: 'violation-appeal' },
    appealOpen(v, now) ? window : `${window} The appeal window is closed.`,
  );
}

function eventItem(v: ViolationDto, e: ViolationEvent, tz: string) {
  // An approval's re-inspection is told with its link (`stepExtras`).
  const detail = e.kind === 'approved' ? '' : stepDetailWords(e, v.law, tz);
  return h(
    'li',
    { 'data-event': e.kind },
    h('time', { datetime: e.at }, formatTime(e.at, tz)),
    ' ',
    `${STEP_KIND_WORDS[e.kind] ?? e.kind} (recorded by ${e.by})`,
    detail ? h('div', { class: 'small' }, detail) : null,
    e.text ? h('div', { class: 'small' }, e.text) : null,
    stepExtras(e, tz),
  );
}

/** What the person signed in may do with the notice now, each a folded form; or why not. */
function actions(site: Site, v: ViolationDto, now: number, done: (words: string) => void) {
  if (isClosed(v.status)) return [];
  const out: HTMLElement[] = [];
  const law = lawOfNotice(v);
  const key = v.id.replace(/[^A-Za-z0-9_-]/g, '-');
  if (isPartyOf(site)) {
    // An appeal is filed once: after that it is with the town.
    if (appealed(v)) out.push(h('p', { class: 'small muted' }, `The appeal is with ${law.appealTo}.`));
    else if (appealOpen(v, now))
      out.push(
        noteForm({
          id: `appeal-${key}`,
          summary: 'Appeal',
          label: 'Why the determination is wrong',
          hint: `A written notice of appeal to ${law.appealTo}, filed within ${law.appealDays} days of service${v.appealBy ? `: by ${endOfDay(v.appealBy, site.timezone)}` : ''}.`,
          submitLabel: 'File the appeal',
          emptyWords: 'Write the reasons for the appeal.',
          send: async (reason) => {
            await post('POST /api/violations/:id/appeal', { params: { id: v.id }, body: { reason } });
            const words = `The appeal is filed with ${law.appealTo}.`;
            done(words);
            return words;
          },
        }),
      );
    else
      out.push(
        h(
          'p',
          { class: 'small muted violation-no-appeal' },
          `It can no longer be appealed: the ${law.appealDays} days to appeal ended at ${endOfDay(v.appealBy!, site.timezone)}.`,
        ),
      );
    if (v.status !== 'corrected') out.push(correctedForm(site, v, key, done));
  }
  if (isOfficer()) {
    out.push(
      serviceForm(key, site, partyNames(v), async (body) => {
        await post('POST /api/violations/:id/service', { params: { id: v.id }, body });
        const words = `The service ${body.method === 'mail' ? 'by mail' : 'in person'} on ${body.party} is recorded.`;
        done(words);
        return words;
      }),
    );
    const hearing = hearingForm(v, key, done);
    if (hearing) out.push(hearing);
  }
  if (isOfficer()) out.push(approveForm(site, v, key, done));
  return out;
}

function noticeItem(site: Site, v: ViolationDto, now: number, done: (words: string) => void) {
  const tz = site.timezone;
  const label = VIOLATION_STATUS_LABELS[v.status] ?? v.status;
  const law = lawOf(v.law);
  const title = law.orderKinds.length > 1 ? orderKindOf(law, v.orderKind).label : law.noticeTitle;
  const pdf = `${v.documentUrl}${v.documentUrl.includes('?') ? '&' : '?'}format=pdf`;
  return h(
    'article',
    { class: `card violation violation-${v.status}`, 'data-violation': v.id, 'data-status': v.status },
    h(
      'header',
      { class: 'card-head' },
      h('h4', null, `${title} of ${shortDate(v.issuedAt, tz, now)}`),
      h('div', { class: 'counts' }, badge(label, STATUS_BADGE[v.status] ?? 'muted')),
    ),
    h('p', { class: 'violation-nature' }, v.nature),
    h('p', { class: 'small' }, h('strong', null, 'Remedial measures: '), v.remedy),
    dueLine(v, tz, now),
    appealLine(v, tz, now),
    h(
      'p',
      { class: 'small muted violation-served' },
      `Issued by ${v.issuedBy} ${formatTime(v.issuedAt, tz)}, under the ${law.title}. `,
      v.servedAt ? `First served ${formatTime(v.servedAt, tz)}.` : 'Not yet served.',
    ),
    v.events.length
      ? h(
          'ol',
          { class: 'violation-events small' },
          v.events.map((e) => eventItem(v, e, tz)),
        )
      : null,
    h(
      'p',
      { class: 'small' },
      h('a', { href: v.documentUrl, target: '_blank', rel: 'noopener' }, 'The notice'),
      ' · ',
      h('a', { href: pdf, target: '_blank', rel: 'noopener' }, 'as PDF'),
    ),
    actions(site, v, now, done),
  );
}

/** The list, newest first. */
export function violationList(
  site: Site,
  notices: readonly ViolationDto[],
  now: number,
  done: (words: string) => void,
) {
  if (!notices.length) return h('p', { class: 'muted' }, 'No notices of violation.');
  return h(
    'div',
    { class: 'violations' },
    notices.map((v) => noticeItem(site, v, now, done)),
  );
}
