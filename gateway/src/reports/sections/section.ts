/**
 * One section of the compliance report (the summary, storms, duties, inspections, notices, notices of
 * violation, stop-work orders, extensions, changes, certifications): what it collects into the report
 * from what was read for the period, what it adds to the summary's counts, and how the page and the CSV
 * show it. `index.ts` lists them once, in the order a person reads them; `../compliance.ts`, `../html.ts`
 * and `../csv.ts` go through that list.
 */
import type { ComplianceReport, ReportInputs, SummaryKey } from '../report.ts';
import { escapeXml as esc } from '../stormChart.ts';
import { STATUS_WORDS, wordFor } from '../words.ts';
import type { FindingsContext } from './inspectionFindings.ts';

/** The report's fields its sections fill: all but its head (site, period, who and when) and its evidence. */
export type SectionFields = Omit<
  ComplianceReport,
  'warnings' | 'site' | 'period' | 'generatedAt' | 'generatedBy' | 'evidence'
>;
export type SectionField = keyof SectionFields;

/** Counts of the summary, by its keys. */
export type Counts = Partial<Record<SummaryKey, number>>;

/** A time as the report prints it, in the site's zone (escaped); `—` for none. */
export type Time = (iso: string | null | undefined) => string;

/** What a section's part of the page is drawn with. */
export interface HtmlContext extends FindingsContext {
  t: Time;
  /** A device as people know it (escaped); `—` for none. */
  device(id: string | null | undefined): string;
  /** A device's name as people know it, else its id (not escaped). */
  deviceName(id: string): string;
  /** Each storm's chart (SVG), by storm id, and how many storms in the table were left without one. */
  charts: ReadonlyMap<string, string>;
  chartsLeftOut: number;
}

/**
 * Where on the page a section sits: the first page (under the summary), the storms' section, the
 * duties' pages (with the records of the period), or the enforcement page. Within each, the list's order.
 */
export type HtmlRegion = 'front' | 'storms' | 'duties' | 'enforcement';

export interface ReportSection<K extends SectionField = SectionField> {
  id: string;
  /**
   * Its fields of the report, and what it adds to the summary's counts. `counted` holds the counts of
   * the sections collected before it: every section but the one that `countsOthers` is collected first.
   */
  collect(i: ReportInputs, counted: Readonly<Counts>): { fields: Pick<SectionFields, K>; counts?: Counts };
  /** It is made of the other sections' counts (the summary), so it is collected after them. */
  countsOthers?: true;
  html: {
    region: HtmlRegion;
    render(r: ComplianceReport, c: HtmlContext): string;
    /** A line of the page's header, under the site's name, when there is something to say there. */
    header?(r: ComplianceReport, c: HtmlContext): string;
  };
  /** Its rows of the CSV, in the report's columns (section, id, rule, device, began, due, done, status, detail). */
  csv(r: ComplianceReport): unknown[][];
}

/** A status in words, in its badge. */
export const badge = (s: string): string =>
  `<span class="st st-${esc(s)}">${esc(wordFor(STATUS_WORDS, s))}</span>`;

/** A line saying a list is empty. */
export const none = (what: string): string => `<p class="none">${esc(what)}</p>`;

/** A table with its head (escaped) and its rows (already markup). */
export const table = (head: string[], rows: string[]): string =>
  `<table><thead><tr>${head.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>${rows.join('')}</tbody></table>`;

/** A list of the period under its heading (markup): its table, or a line saying there is none. */
export const listTable = (heading: string, head: string[], rows: string[]): string =>
  `<h2>${heading}</h2>${rows.length ? table(head, rows) : none('None in this period.')}`;
