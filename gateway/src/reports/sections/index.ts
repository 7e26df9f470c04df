/**
 * The compliance report's sections, once, in the order a person reads them: the CSV's rows in this
 * order, and the page's too, region by region (`section.ts`, `HtmlRegion`). The JSON keeps the order of
 * its fields as published (`../compliance.ts`), which verifiers and the reports already filed read.
 */
import { certifications } from './certifications.ts';
import { changes } from './changes.ts';
import { duties } from './duties.ts';
import { extensions } from './extensions.ts';
import { inspections } from './inspections.ts';
import { notices } from './notices.ts';
import { records } from './records.ts';
import type { ReportSection, SectionField } from './section.ts';
import { stopWork } from './stopWork.ts';
import { storms } from './storms.ts';
import { summary } from './summary.ts';
import { violations } from './violations.ts';

export const SECTIONS = [
  summary,
  storms,
  duties,
  inspections,
  notices,
  violations,
  stopWork,
  records,
  extensions,
  changes,
  certifications,
] as const;

/** The fields the listed sections fill. */
type Filled = (typeof SECTIONS)[number] extends infer S
  ? S extends ReportSection<infer K>
    ? K
    : never
  : never;
/** Every field of the report's sections is some listed section's: a section left out fails to compile. */
export const EVERY_FIELD_FILLED: [Exclude<SectionField, Filled>] extends [never] ? true : never = true;
