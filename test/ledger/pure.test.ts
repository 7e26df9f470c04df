import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const LEDGER = join(ROOT, 'gateway/src/ledger');

/** Every module specifier a file imports or re-exports from. */
function specifiers(source: string): string[] {
  return [...source.matchAll(/\bfrom\s+'([^']+)'/g), ...source.matchAll(/\bimport\s*\(\s*'([^']+)'/g)].map(
    (m) => m[1]!,
  );
}

describe('the evidence ledger', () => {
  it('imports nothing but itself, the shared contract and node:crypto', () => {
    const files = readdirSync(LEDGER).filter((f) => f.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(0);
    const outside = files.flatMap((f) =>
      specifiers(readFileSync(join(LEDGER, f), 'utf8'))
        .filter(
          (s) => !/^\.\/[\w.-]+\.ts$/.test(s) && !s.startsWith('../../../shared/src/') && s !== 'node:crypto',
        )
        .map((s) => `${f}: ${s}`),
    );
    expect(outside).toEqual([]);
  });
});
