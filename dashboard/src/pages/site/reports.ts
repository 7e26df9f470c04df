/**
 * A site's compliance report for any period: a preset (the last 30 days, this or last month, this or last
 * year) or two days picked in the site's time zone, and the report as a printable page, a PDF, a
 * spreadsheet (CSV) and the verifiable JSON, with where to get the offline verifier.
 */
import { addDays, localParts } from '../../../../shared/src/time.ts';
import { url } from '../../api.js';
import { h, replace } from '../../ui/dom.js';

type Day = { year: number; month: number; day: number };
type Period = { from: string; to: string };

const pad = (n: number) => String(n).padStart(2, '0');
const iso = (d: Day) => `${d.year}-${pad(d.month)}-${pad(d.day)}`;
const lastOfMonth = (year: number, month: number): Day => addDays(year, month + 1, 1, -1);

/** The presets, each a period of whole local days ending no later than today. */
export function presets(today: Day): Array<{ id: string; label: string; period: Period }> {
  const { year, month } = today;
  const prevMonth = month === 1 ? { year: year - 1, month: 12 } : { year, month: month - 1 };
  return [
    {
      id: 'last30',
      label: 'Last 30 days',
      period: { from: iso(addDays(year, month, today.day, -29)), to: iso(today) },
    },
    { id: 'thisMonth', label: 'This month', period: { from: iso({ year, month, day: 1 }), to: iso(today) } },
    {
      id: 'lastMonth',
      label: 'Last month',
      period: {
        from: iso({ ...prevMonth, day: 1 }),
        to: iso(lastOfMonth(prevMonth.year, prevMonth.month)),
      },
    },
    { id: 'thisYear', label: 'This year', period: { from: `${year}-01-01`, to: iso(today) } },
    { id: 'lastYear', label: 'Last year', period: { from: `${year - 1}-01-01`, to: `${year - 1}-12-31` } },
  ];
}

/** The report's links for a site and a period. */
function links(siteId: string, p: Period) {
  const href = (format: string) => url('/api/reports/compliance', { siteId, from: p.from, to: p.to, format });
  return [
    h('a', { href: href('html'), target: '_blank', rel: 'noopener' }, 'Printable report'),
    ' · ',
    // Opened, not downloaded: where the gateway cannot print a PDF, the tab says so in words.
    h('a', { href: href('pdf'), target: '_blank', rel: 'noopener' }, 'PDF'),
    ' · ',
    h('a', { href: href('csv'), download: '' }, 'Spreadsheet (CSV)'),
    ' · ',
    h(
      'a',
      {
        href: href('json'),
        download: `compliance-${siteId}-${p.from}-${p.to}.json`,
        title: 'The report with its evidence, to check with the offline verifier',
      },
      'Verifiable file (JSON)',
    ),
    ' · ',
    h(
      'a',
      {
        href: '/verify.html',
        download: 'verify.html',
        title: 'Opens offline in any browser: no installation',
      },
      'Offline verifier',
    ),
  ];
}

/** The period picker with the report's links, for `siteId` whose days are counted in `tz`. */
export function reportPicker(siteId: string, tz: string, now: number): HTMLElement {
  const today = localParts(now, tz);
  const choices = presets(today);
  const first = choices[0] as (typeof choices)[number];
  const out = h('p', { class: 'report-links', 'aria-live': 'polite' });
  const from = h('input', { type: 'date', id: 'report-from', value: first.period.from, max: iso(today) });
  const to = h('input', { type: 'date', id: 'report-to', value: first.period.to, max: iso(today) });
  const preset = h(
    'select',
    { id: 'report-preset' },
    ...choices.map((c) => h('option', { value: c.id }, c.label)),
    h('option', { value: 'custom' }, 'Other days…'),
  ) as HTMLSelectElement;
  const fromInput = from as HTMLInputElement;
  const toInput = to as HTMLInputElement;
  const update = () => {
    const p = { from: fromInput.value, to: toInput.value };
    if (!p.from || !p.to || p.from > p.to) {
      replace(out, 'Pick a first day on or before the last day.');
      out.classList.add('text-bad');
      return;
    }
    out.classList.remove('text-bad');
    replace(out, ...links(siteId, p));
  };
  preset.addEventListener('change', () => {
    const c = choices.find((x) => x.id === preset.value);
    if (c) {
      fromInput.value = c.period.from;
      toInput.value = c.period.to;
    }
    update();
  });
  for (const input of [fromInput, toInput])
    input.addEventListener('change', () => {
      preset.value = 'custom';
      update();
    });
  update();
  return h(
    'div',
    { class: 'report-picker' },
    h(
      'fieldset',
      { class: 'filters' },
      h('legend', null, `Compliance report (days in ${tz})`),
      h('label', null, 'Period', preset),
      h('label', null, 'From', from),
      h('label', null, 'To', to),
    ),
    out,
  );
}
