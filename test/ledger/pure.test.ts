import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const LEDGER = join(ROOT, 'gateway/src/ledger');
/** The report verifier, which verify.html bundles for a browser. */
const VERIFIER = join(LEDGER, 'verify.ts');

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

/** The files a module imports, and theirs, to the end. */
function closure(entry: string): string[] {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const s of specifiers(readFileSync(file, 'utf8')))
      if (s.startsWith('.')) visit(resolve(dirname(file), s));
  };
  visit(entry);
  return [...seen].map((f) => relative(ROOT, f)).sort();
}

/** A source without its comments (the words may name what the code does not use). */
const code = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');

describe('the report verifier', () => {
  it('uses no Node API: no node: import, no Buffer, in any file it reaches', () => {
    const files = closure(VERIFIER);
    expect(files).toContain('gateway/src/ledger/webcrypto.ts');
    expect(files).toContain('shared/src/time.ts');
    const node = files.flatMap((f) => {
      const text = readFileSync(join(ROOT, f), 'utf8');
      return [
        ...specifiers(text)
          .filter((s) => s.startsWith('node:'))
          .map((s) => `${f}: imports ${s}`),
        ...(/\bBuffer\b|\bprocess\./.test(code(text)) ? [`${f}: uses Buffer or process`] : []),
      ];
    });
    expect(node).toEqual([]);
  });

  it('bundles for a browser, with nothing left to load', async () => {
    const out = await build({
      entryPoints: [VERIFIER],
      bundle: true,
      write: false,
      format: 'esm',
      platform: 'browser',
      logLevel: 'silent',
    });
    const text = out.outputFiles[0]!.text;
    expect(text).toMatch(/crypto\.subtle/);
    expect(text).not.toMatch(/\brequire\(|\bimport\s*\(|^import\b/m);
  });
});
