import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { build } from 'esbuild';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const DIR = join(ROOT, 'gateway/src/verifier');
/** The report verifier, which verify.html bundles for a browser. */
const VERIFIER = join(DIR, 'verify.ts');

/** Every module specifier a file imports or re-exports from, dynamic imports too. */
const specifiers = (source: string): string[] =>
  ts.preProcessFile(source, true, true).importedFiles.map((f) => f.fileName);

describe('the report verifier', () => {
  it('imports nothing but itself, the evidence ledger and the shared contract', () => {
    const files = readdirSync(DIR).filter((f) => f.endsWith('.ts'));
    expect(files).toContain('verify.ts');
    const outside = files.flatMap((f) =>
      specifiers(readFileSync(join(DIR, f), 'utf8'))
        .filter(
          (s) =>
            !/^\.\/[\w.-]+\.ts$/.test(s) &&
            !/^\.\.\/ledger\/[\w.-]+\.ts$/.test(s) &&
            !s.startsWith('../../../shared/src/'),
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

describe('the report verifier in a browser', () => {
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
