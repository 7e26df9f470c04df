/**
 * What an alert rests on, in words: the rule's labelled sentences as the gateway answers them
 * (`evidenceText`), or, for an alert the page has only from the live feed, every recorded value with a
 * generic label (shared/src/words.ts). Never a raw key, `null` or JSON.
 */
import { factLines } from '../../../shared/src/words.ts';
import { h } from './dom.js';

export type Alert = import('../state.js').Alert;
export type FactLine = import('../../../shared/src/words.ts').FactLine;

/** Labelled lines as a definition list. */
export function factList(lines: readonly FactLine[], cls = 'kv evidence') {
  if (!lines.length) return h('p', { class: 'muted' }, 'Nothing recorded.');
  return h(
    'dl',
    { class: cls },
    lines.map((l) => [h('dt', null, l.label), h('dd', null, l.text)]),
  );
}

/** An alert's evidence lines: the gateway's words for it, else the generic ones. */
export function evidenceLines(a: Alert, tz: string): FactLine[] {
  return a.evidenceText ?? factLines(a.evidence, tz);
}

/** A record's values (a history entry's evidence, a resolution's) folded away under a summary. */
export function recordedValues(values: unknown, tz: string, summary = 'Recorded values') {
  if (!values || typeof values !== 'object' || Array.isArray(values)) return null;
  const lines = factLines(values as Record<string, unknown>, tz);
  if (!lines.length) return null;
  return h('details', { class: 'recorded' }, h('summary', null, summary), factList(lines, 'kv small'));
}
