/**
 * The layout of dashboard/src (its README): the client beneath the shared widgets, the charts above them,
 * the pages above all three, the entry points on top; no cycle between files or folders; a page never
 * imports another page (app.ts routes between them); what is loaded lazily is never imported eagerly
 * as well, which would put it back in the first bundle; one naming case.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import {
  fileCycles,
  type Graph,
  importGraph,
  type Layer,
  moduleCycles,
  unplaced,
  upwardImports,
} from './graph.ts';

const LAYERS: Layer[] = [
  // The client: the gateway's API, what the page knows (sites, alerts, rules), who is signed in, the live
  // feed, and what is kept on the phone (the inspections waiting, the sites for the field).
  {
    level: 0,
    modules: ['api.ts', 'state.ts', 'session.ts', 'live.ts', 'waiting.ts', 'field-copy.ts'],
  },
  // Widgets and helpers more than one page uses: the DOM builder, formats, forms, dialogs, the alert dialog.
  { level: 1, modules: ['ui/'] },
  // The charts (uPlot).
  { level: 2, modules: ['charts/'] },
  // One folder a page.
  { level: 3, modules: ['pages/'] },
  // The entry points: the page's script, the inspection form bundled apart and its loader, the service worker.
  { level: 4, modules: ['app.ts', 'field.ts', 'field-loader.ts', 'sw.ts'] },
];

const SRC = fileURLToPath(new URL('../../dashboard/src', import.meta.url));

const listed = (found: string[]): string => found.map((f) => `\n  ${f}`).join('');

/** The page a file belongs to (`pages/<page>/…`), if it is in one. */
const pageOf = (file: string): string | undefined => /^pages\/([^/]+)\//.exec(file)?.[1];

/** Imports from one page's folder into another's, as `a -> b`. */
function crossPageImports(graph: Graph): string[] {
  return [...graph].flatMap(([file, targets]) => {
    const from = pageOf(file);
    return from === undefined
      ? []
      : targets.filter((t) => pageOf(t) !== undefined && pageOf(t) !== from).map((t) => `${file} -> ${t}`);
  });
}

/**
 * The relative imports of a source that load code: those that import a value (not `import type`, not an
 * import whose every name is a type) or re-export, split into static ones and dynamic `import('…')` calls.
 */
function loadingImports(text: string): { eager: string[]; lazy: string[] } {
  const eager: string[] = [];
  const lazy: string[] = [];
  const source = ts.createSourceFile('x.ts', text, ts.ScriptTarget.Latest, false);
  const relativeSpec = (n: ts.Node | undefined) =>
    n && ts.isStringLiteral(n) && n.text.startsWith('.') ? n.text : undefined;
  const visit = (n: ts.Node): void => {
    if (ts.isImportDeclaration(n)) {
      const c = n.importClause;
      const bindings = c?.namedBindings;
      const onlyTypes =
        c?.isTypeOnly ||
        (c &&
          !c.name &&
          bindings &&
          ts.isNamedImports(bindings) &&
          bindings.elements.every((e) => e.isTypeOnly));
      const spec = relativeSpec(n.moduleSpecifier);
      if (spec && !onlyTypes) eager.push(spec);
    } else if (ts.isExportDeclaration(n)) {
      const spec = relativeSpec(n.moduleSpecifier);
      if (spec && !n.isTypeOnly) eager.push(spec);
    } else if (ts.isCallExpression(n) && n.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const spec = relativeSpec(n.arguments[0]);
      if (spec) lazy.push(spec);
    }
    ts.forEachChild(n, visit);
  };
  visit(source);
  return { eager, lazy };
}

/** Each file under `root` and its loading imports, resolved as importGraph resolves them. */
function loadingGraph(root: string, graph: Graph): { eager: Graph; lazy: Graph } {
  const eager: Graph = new Map();
  const lazy: Graph = new Map();
  for (const file of graph.keys()) {
    const found = loadingImports(readFileSync(join(root, file), 'utf8'));
    // The graph's targets of one file, by the specifier that names each: a one-file root resolves it.
    const resolve = (spec: string) => {
      const parts = file.split('/').slice(0, -1);
      for (const p of spec.replace(/\.js$/, '.ts').split('/')) {
        if (p === '..') parts.pop();
        else if (p !== '.') parts.push(p);
      }
      return parts.join('/');
    };
    eager.set(file, found.eager.map(resolve));
    lazy.set(file, found.lazy.map(resolve));
  }
  return { eager, lazy };
}

/** Files imported lazily somewhere and eagerly somewhere, as `file (eagerly from …)`. */
function lazyImportedEagerly(eager: Graph, lazy: Graph): string[] {
  const lazyTargets = new Set([...lazy.values()].flat());
  return [...lazyTargets].sort().flatMap((t) => {
    const from = [...eager].filter(([, targets]) => targets.includes(t)).map(([f]) => f);
    return from.length ? [`${t} (eagerly from ${from.join(', ')})`] : [];
  });
}

/** Every file and folder name under `dir`, relative to it. */
function names(dir: string, prefix = ''): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => [
    `${prefix}${d.name}`,
    ...(d.isDirectory() ? names(join(dir, d.name), `${prefix}${d.name}/`) : []),
  ]);
}

/** kebab-case: lower-case words joined by `-`, then the extension(s). A folder's README keeps its usual name. */
const KEBAB = /^[a-z0-9]+(-[a-z0-9]+)*(\.[a-z0-9]+)*$/;

describe('the import graph of dashboard/src', () => {
  const graph = importGraph(SRC);

  it('reads every source file, its imports written as the browser loads them', () => {
    expect(graph.size).toBeGreaterThan(40);
    expect(graph.get('app.ts')).toContain('pages/overview/overview.ts');
    expect(graph.get('pages/site/site.ts')).toContain('pages/site/enforcement.ts');
  });

  it('has no cycle between files', () => {
    const found = fileCycles(graph);
    expect(found, `file cycles:${listed(found.flat())}`).toEqual([]);
  });

  it('has no cycle between top-level folders and files', () => {
    const found = moduleCycles(graph, LAYERS);
    expect(found, `module cycles:${listed(found.flat())}`).toEqual([]);
  });

  it('imports nothing from a higher layer: the client, ui/ and charts/ beneath the pages', () => {
    const found = upwardImports(graph, LAYERS);
    expect(found, `upward imports:${listed(found)}`).toEqual([]);
  });

  it('places every file in a layer', () => {
    const found = unplaced(graph, LAYERS);
    expect(found, `files in no layer:${listed(found)}`).toEqual([]);
  });

  it('keeps each page to its own folder: a page never imports another page', () => {
    const found = crossPageImports(graph);
    expect(found, `imports between pages:${listed(found)}`).toEqual([]);
  });

  it('never imports eagerly what is loaded lazily (the admin pages, the enforcement part)', () => {
    const { eager, lazy } = loadingGraph(SRC, graph);
    const lazyTargets = [...lazy.values()].flat();
    expect(lazyTargets).toEqual(
      expect.arrayContaining(['pages/devices/devices.ts', 'pages/site/enforcement.ts']),
    );
    for (const t of lazyTargets) expect(graph.has(t), `${t} is a source file`).toBe(true);
    const found = lazyImportedEagerly(eager, lazy);
    expect(found, `lazy modules imported eagerly:${listed(found)}`).toEqual([]);
  });

  it('names every file and folder in kebab-case', () => {
    const found = names(SRC).filter((n) => {
      const base = n.split('/').at(-1) ?? '';
      return base !== 'README.md' && !KEBAB.test(base);
    });
    expect(found, `names not in kebab-case:${listed(found)}`).toEqual([]);
  });
});

describe('the dashboard checks', () => {
  it('find an import between pages, not one within a page or down to ui/', () => {
    const graph: Graph = new Map([
      ['pages/a/a.ts', ['pages/a/part.ts', 'ui/dom.ts']],
      ['pages/a/part.ts', ['pages/b/b.ts']],
      ['pages/b/b.ts', ['ui/dom.ts']],
      ['app.ts', ['pages/a/a.ts', 'pages/b/b.ts']],
    ]);
    expect(crossPageImports(graph)).toEqual(['pages/a/part.ts -> pages/b/b.ts']);
  });

  it('tell loading imports from type-only ones, and lazy from eager', () => {
    const text = [
      "import { a } from './a.js';",
      "import type { B } from './b.js';",
      "import { type C } from './c.js';",
      "import { type D, d } from './d.js';",
      "export * from './e.js';",
      "export type { F } from './f.js';",
      "type G = import('./g.js').G;",
      "const h = () => import('./h.js');",
      "import { z } from 'zod';",
    ].join('\n');
    expect(loadingImports(text)).toEqual({ eager: ['./a.js', './d.js', './e.js'], lazy: ['./h.js'] });
  });

  it('find a lazy module imported eagerly as well', () => {
    const eager: Graph = new Map([
      ['app.ts', ['ui/dom.ts']],
      ['pages/a/a.ts', ['pages/b/b.ts']],
    ]);
    const lazy: Graph = new Map([['app.ts', ['pages/b/b.ts', 'pages/c/c.ts']]]);
    expect(lazyImportedEagerly(eager, lazy)).toEqual(['pages/b/b.ts (eagerly from pages/a/a.ts)']);
  });
});
