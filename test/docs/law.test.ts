/**
 * docs/law.md is the auditor's table: every duty of the three law texts, the rule or record that keeps
 * it, and the test that proves it. This keeps the table true: each link resolves, each test it names
 * holds the test title it quotes, each duty is either proven or left out with a reason, and every rule
 * the gateway runs appears in it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RULE_MODULES } from '../../gateway/src/rules/index.ts';

const DOC = join(import.meta.dirname, '../../docs/law.md');
const text = readFileSync(DOC, 'utf8');

/** The rows of the markdown table under a `## heading`: its cells, the header and divider dropped. */
function tableUnder(heading: string): string[][] {
  const at = text.indexOf(`\n## ${heading}\n`);
  if (at < 0) return [];
  const rest = text.slice(at + heading.length + 5);
  const end = rest.search(/\n## /);
  const lines = (end < 0 ? rest : rest.slice(0, end)).split('\n').filter((l) => l.startsWith('|'));
  return lines.slice(2).map((l) =>
    l
      .slice(1, -1)
      .split(/(?<!\\)\|/)
      .map((c) => c.trim()),
  );
}

const kept = tableUnder('Duties the gateway keeps');
const left = tableUnder('Duties left out, and why');

describe('docs/law.md, the table of duties', () => {
  it('lists duties of each of the three laws, each id once', () => {
    const ids = [...kept, ...left].map((r) => r[0]);
    expect(new Set(ids).size).toBe(ids.length);
    for (const law of ['000', '001', '002'])
      expect(
        ids.some((id) => id?.startsWith(law)),
        law,
      ).toBe(true);
    expect(kept.length).toBeGreaterThanOrEqual(30);
  });

  it('links only to files that exist', () => {
    for (const [, target] of text.matchAll(/\]\((\.\.\/[^)#\s]+)/g)) {
      expect(existsSync(join(dirname(DOC), target as string)), target).toBe(true);
    }
  });

  it('proves every duty it keeps with a test that holds the title it quotes', () => {
    for (const row of kept) {
      const proof = row[row.length - 1] ?? '';
      const links = [...proof.matchAll(/\]\((\.\.\/test\/[^)\s]+)\)\s*"([^"]+)"/g)];
      expect(links.length, `${row[0]}: a test and its title`).toBeGreaterThan(0);
      for (const [, file, title] of links) {
        const src = readFileSync(join(dirname(DOC), file as string), 'utf8');
        expect(src, `${row[0]}: ${file} holds "${title}"`).toContain(title as string);
      }
    }
  });

  it('says why for every duty it leaves out', () => {
    for (const row of left) expect((row[row.length - 1] ?? '').length, row[0]).toBeGreaterThan(20);
  });

  it('names every rule the gateway runs', () => {
    for (const m of RULE_MODULES) expect(text, m.name).toContain(`gateway/src/rules/${m.name}/`);
  });
});
