/**
 * Law 000 as docs/law.md and the code quote it: every quotation of the law's words in the table's 000
 * rows (kept and left out), in the READMEs of the rules that keep only 000's duties, and in the words a
 * 000 order prints as the law's (its penalty, what follows when it is not met, the stop-work order) is
 * the law's text, word for word between its ellipses (`test/fixtures/law/000.txt`, a copy of it); and a
 * row that refers to another names the row that keeps what it says.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENFORCEMENT_LAWS } from '../../shared/src/api/enforcementLaws.ts';

const root = join(import.meta.dirname, '../..');
const read = (p: string) => readFileSync(join(root, p), 'utf8');
/** Quotes and dashes plain, white space single, lower case: a quotation compares by its words. */
const norm = (s: string) =>
  s
    .replace(/[\u2018\u2019]/g, "'")
    .replace(/[\u201c\u201d]/g, '"')
    .replace(/[\u2013\u2014]/g, '-')
    .replace(/\s+/g, ' ')
    .toLowerCase();
const LAW = norm(read('test/fixtures/law/000.txt'));
/** The parts of a quotation between its ellipses that are not the law's words. */
const notTheLaw = (quote: string): string[] =>
  quote
    .split('…')
    .map((f) => norm(f).replace(/^[\s.,;"]+|[\s.,;"]+$/g, ''))
    .filter((f) => f.length > 3 && !LAW.includes(f));

const doc = read('docs/law.md');
const rows = doc
  .split('\n')
  .filter((l) => /^\| 000-\d+ \|/.test(l))
  .map((l) =>
    l
      .slice(1, -1)
      .split('|')
      .map((c) => c.trim()),
  );

describe("law 000's words, as quoted", () => {
  it("quotes in docs/law.md's 000 rows are the law's words", () => {
    expect(rows.length).toBeGreaterThan(20);
    for (const [id, , words] of rows)
      for (const [, q] of (words ?? '').matchAll(/"([^"]+)"/g)) expect(notTheLaw(q!), id).toEqual([]);
  });

  it("the 000 rules' READMEs quote the law's words", () => {
    for (const rule of [
      'remedy',
      'deficiency-remedy',
      'annual-inspection',
      'septic-pumping',
      'holding-tank-pumpout',
    ]) {
      const quotes = read(`gateway/src/rules/${rule}/README.md`)
        .split(/\n(?!>)/)
        .filter((b) => b.startsWith('>'))
        .map((b) => b.replace(/^> ?/gm, ' '));
      for (const q of quotes) expect(notTheLaw(q.replace(/\[[^\]]*\]/g, '…')), rule).toEqual([]);
    }
  });

  it("a 000 order prints the law's words: the penalty (6.010), what follows (5.100 B), the stop-work (5.030 A 7)", () => {
    const law = ENFORCEMENT_LAWS['000'];
    // The section cited in parentheses is the order's, not the law's words.
    const words = (t: string) => t.replace(/\s*\((Town law|Section)[^)]*\)/g, '');
    for (const t of [law.penalties, law.whenNotMet, law.stopWork.words])
      for (const sentence of words(t).split(/(?<=\.) /)) expect(notTheLaw(sentence)).toEqual([]);
    // The owner of a system in violation is subject to the penalty, not only who omits a required act.
    expect(law.penalties).toContain('there exists a structure or system in violation of this ordinance');
  });

  it('a row that refers to another names the row that keeps what it says', () => {
    const byId = new Map(rows.map((r) => [r[0]!, r]));
    for (const r of rows)
      for (const [, ref] of r
        .slice(1)
        .join(' ')
        .matchAll(/\((000-\d+)\)/g)) {
        expect(byId.has(ref!), `${r[0]} refers to ${ref}`).toBe(true);
        expect(ref, `${r[0]} refers to itself`).not.toBe(r[0]);
      }
    // The abandoned tank's last pump-out is the pumping row's; the Board's hearing, the appeal's.
    const refOf = (id: string) =>
      byId
        .get(id)!
        .join(' ')
        .match(/\((000-\d+)\)/)?.[1];
    expect(byId.get(refOf('000-02')!)!.join(' ')).toContain('septic-pumping/');
    expect(byId.get(refOf('000-11')!)!.join(' ')).toContain('Local Board of Health');
  });
});
