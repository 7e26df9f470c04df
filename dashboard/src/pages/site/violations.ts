/**
 * A construction site's notices of violation (town law 001, Enforcement): each with its status in words,
 * the remedy's due time in the site's zone ("in 3 days", "2 days overdue"), the appeal window ("may be
 * appealed until Dec 16", or closed), its steps, and the notice itself. The site's owner or contractor
 * may appeal (within the 15 days of service) and report it corrected; an inspector approves.
 */
import {
  APPEAL_DAYS,
  VIOLATION_STATUS_LABELS,
  type ViolationStatus,
} from '../../../../shared/src/api/enforcementWords.ts';
import type { ViolationDto, ViolationEvent } from '../../../../shared/src/api/violations.ts';
import { getAll, post } from '../../api.js';
import { isAdmin, isScoped, session } from '../../session.js';
import type { Site } from '../../state.js';
import { badge, h } from '../../ui/dom.js';
import { dueInWords, formatTime, shortDate } from '../../ui/format.js';
import { noteForm } from './note-form.js';

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
};

const EVENT_WORDS: Record<ViolationEvent['kind'], string> = {
  appealed: 'Appealed',
  corrected: 'Reported corrected',
  approved: 'Approved',
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
const appealOpen = (v: ViolationDto, now: number) => now < Date.parse(v.appealBy);

function appealLine(v: ViolationDto, tz: string, now: number) {
  const a = v.events.find((e) => e.kind === 'appealed');
  if (a) return h('p', { class: 'violation-appeal' }, `Appealed ${shortDate(a.at, tz, now)}.`);
  return h(
    'p',
    { class: 'violation-appeal' },
    appealOpen(v, now) ? `May be appealed until ${shortDate(v.appealBy, tz, now)}.` : 'Appeal window closed.',
  );
}

function eventItem(e: ViolationEvent, tz: string) {
  return h(
    'li',
    { 'data-event': e.kind },
    h('time', { datetime: e.at }, formatTime(e.at, tz)),
    ' ',
    `${EVENT_WORDS[e.kind]} by ${e.by}`,
    e.text ? h('div', { class: 'small' }, e.text) : null,
    e.photos.length
      ? h('div', { class: 'small muted' }, `${e.photos.length} photo${e.photos.length === 1 ? '' : 's'}`)
      : null,
  );
}

/** What the person signed in may do with the notice now, each a folded form; or why not. */
function actions(site: Site, v: ViolationDto, now: number, done: (words: string) => void) {
  if (v.status === 'approved') return [];
  const out: HTMLElement[] = [];
  const key = v.id.replace(/[^A-Za-z0-9_-]/g, '-');
  if (isPartyOf(site)) {
    // An appeal is filed once: after that it is with the town.
    if (appealed(v)) out.push(h('p', { class: 'small muted' }, 'The appeal is with the town.'));
    else if (appealOpen(v, now))
      out.push(
        noteForm({
          id: `appeal-${key}`,
          summary: 'Appeal',
          label: 'Why the determination is wrong',
          hint: `A written notice of appeal, filed within ${APPEAL_DAYS} days of service: by ${formatTime(v.appealBy, site.timezone)}.`,
          submitLabel: 'File the appeal',
          emptyWords: 'Write the reasons for the appeal.',
          send: async (reason) => {
            await post('POST /api/violations/:id/appeal', { params: { id: v.id }, body: { reason } });
            const words = 'The appeal is filed with the town.';
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
          `It can no longer be appealed: the ${APPEAL_DAYS} days to appeal ended on ${shortDate(v.appealBy, site.timezone, now)}.`,
        ),
      );
    if (v.status !== 'corrected')
      out.push(
        noteForm({
          id: `corrected-${key}`,
          summary: 'Report corrected',
          label: 'What was done',
          submitLabel: 'Report corrected',
          emptyWords: 'Write what was done to correct it.',
          send: async (note) => {
            await post('POST /api/violations/:id/corrected', { params: { id: v.id }, body: { note } });
            const words = 'Reported corrected: the town will inspect and approve it.';
            done(words);
            return words;
          },
        }),
      );
  }
  if (isOfficer())
    out.push(
      noteForm({
        id: `approve-${key}`,
        summary: 'Approve',
        label: 'Note (optional)',
        hint: 'The town confirms the remedial measures are done.',
        submitLabel: 'Approve the correction',
        optional: true,
        send: async (note) => {
          await post('POST /api/violations/:id/approve', {
            params: { id: v.id },
            body: note ? { note } : {},
          });
          const words = 'The notice is approved: the violation is corrected.';
          done(words);
          return words;
        },
      }),
    );
  return out;
}

function noticeItem(site: Site, v: ViolationDto, now: number, done: (words: string) => void) {
  const tz = site.timezone;
  const label = VIOLATION_STATUS_LABELS[v.status] ?? v.status;
  const pdf = `${v.documentUrl}${v.documentUrl.includes('?') ? '&' : '?'}format=pdf`;
  return h(
    'article',
    { class: `card violation violation-${v.status}`, 'data-violation': v.id, 'data-status': v.status },
    h(
      'header',
      { class: 'card-head' },
      h('h4', null, `Notice of violation of ${shortDate(v.issuedAt, tz, now)}`),
      h('div', { class: 'counts' }, badge(label, STATUS_BADGE[v.status] ?? 'muted')),
    ),
    h('p', { class: 'violation-nature' }, v.nature),
    h('p', { class: 'small' }, h('strong', null, 'Remedial measures: '), v.remedy),
    dueLine(v, tz, now),
    appealLine(v, tz, now),
    h('p', { class: 'small muted' }, `Issued by ${v.issuedBy}, served ${formatTime(v.issuedAt, tz)}.`),
    v.events.length
      ? h(
          'ol',
          { class: 'violation-events small' },
          v.events.map((e) => eventItem(e, tz)),
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
