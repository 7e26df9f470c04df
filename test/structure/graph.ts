/**
 * The import graph of a source tree and the checks the layering asks of it: no cycle between files, no
 * cycle between top-level modules, no import up a layer, every file in a layer. Pure functions over a
 * plain graph (file -> the files it imports), so a test can feed them a small graph of its own.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

/** A file (relative to the root, `/`-separated) and the files it imports, in the same form. */
export type Graph = Map<string, string[]>;

/** One layer: its number (higher sits above), and the top-level entries of the root it holds. */
export interface Layer {
  level: number;
  modules: string[];
}

/** Every `.ts` file under `dir`, relative to `root`. */
function tsFiles(root: string, dir = root): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = join(dir, d.name);
    if (d.isDirectory()) return tsFiles(root, p);
    return d.name.endsWith('.ts') ? [relative(root, p).split(sep).join('/')] : [];
  });
}

/**
 * The relative imports of one source text: static `import` and `import type`, `export ... from`, bare
 * `import '...'` and dynamic `import('...')`; comments and strings are told apart by the TypeScript scanner.
 */
export function relativeImports(text: string): string[] {
  const { importedFiles } = ts.preProcessFile(text, true, true);
  return importedFiles.map((f) => f.fileName).filter((s) => s.startsWith('./') || s.startsWith('../'));
}

/**
 * The graph of every `.ts` file under `root`; an import that leaves the root keeps its `../` path. An
 * import written as the browser loads it (`./dom.js`) names the source beside it (`dom.ts`).
 */
export function importGraph(root: string): Graph {
  const graph: Graph = new Map();
  const files = tsFiles(root);
  const sources = new Set(files);
  const source = (target: string) => {
    const ts = target.replace(/\.js$/, '.ts');
    return sources.has(ts) ? ts : target;
  };
  for (const file of files) {
    const text = readFileSync(join(root, file), 'utf8');
    const targets = relativeImports(text).map((spec) =>
      source(
        relative(root, resolve(root, dirname(file), spec))
          .split(sep)
          .join('/'),
      ),
    );
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** The top-level entry of the root a file belongs to: its folder, or the file itself at the top. */
export function moduleOf(file: string): string {
  const slash = file.indexOf('/');
  return slash < 0 ? file : file.slice(0, slash);
}

/** An import of a file outside the root (the shared contract beneath the gateway). */
const outside = (file: string): boolean => file.startsWith('../');

/** Strongly connected components of more than one node, or of one node importing itself (Tarjan). */
export function cycles(graph: Graph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const found: string[][] = [];
  let next = 0;
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const scc: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      scc.push(w);
    } while (w !== v);
    if (scc.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(scc.sort());
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return found;
}

/** The edges between the members of one component, as `a -> b`. */
function edgesWithin(graph: Graph, members: string[]): string[] {
  const set = new Set(members);
  return members.flatMap((a) => (graph.get(a) ?? []).filter((b) => set.has(b)).map((b) => `${a} -> ${b}`));
}

/** File cycles, each listed as the imports between its files. */
export function fileCycles(graph: Graph): string[][] {
  return cycles(graph).map((scc) => edgesWithin(graph, scc));
}

/** The graph between top-level modules (an import within a module is not an edge). */
export function moduleGraph(graph: Graph): Graph {
  const mods: Graph = new Map();
  for (const [file, targets] of graph) {
    const from = moduleOf(file);
    const to = new Set(mods.get(from) ?? []);
    for (const t of targets) if (!outside(t) && moduleOf(t) !== from) to.add(moduleOf(t));
    mods.set(from, [...to]);
  }
  return mods;
}

/** The level of each top-level module, from the layers table. */
function levels(layers: Layer[]): Map<string, number> {
  return new Map(layers.flatMap((l) => l.modules.map((m) => [m.replace(/\/$/, ''), l.level] as const)));
}

/**
 * Module cycles, each listed as the module imports `a -> b` that close it, with the file imports behind
 * them. Given the layers, an import down a layer cannot close a cycle on its own and is left out, so what
 * remains is what has to go; without them every import between the cycle's modules is listed.
 */
export function moduleCycles(graph: Graph, layers: Layer[] = []): string[][] {
  const level = levels(layers);
  const down = (a: string, b: string) => (level.get(b) ?? Infinity) < (level.get(a) ?? -Infinity);
  return cycles(moduleGraph(graph)).map((scc) => {
    const set = new Set(scc);
    const via = new Map<string, string[]>();
    for (const [file, targets] of graph)
      for (const t of targets) {
        const [a, b] = [moduleOf(file), moduleOf(t)];
        if (outside(t) || a === b || !set.has(a) || !set.has(b) || down(a, b)) continue;
        via.set(`${a} -> ${b}`, [...(via.get(`${a} -> ${b}`) ?? []), `${file} -> ${t}`]);
      }
    return [...via].map(([edge, files]) => `${edge} (${files.join(', ')})`).sort();
  });
}

/** Imports from a module to one in a higher layer, as `a -> b (La -> Lb)`. */
export function upwardImports(graph: Graph, layers: Layer[]): string[] {
  const level = levels(layers);
  return [...graph].flatMap(([file, targets]) => {
    const from = level.get(moduleOf(file));
    return targets
      .filter((t) => !outside(t))
      .flatMap((t) => {
        const to = level.get(moduleOf(t));
        return from !== undefined && to !== undefined && to > from
          ? [`${file} -> ${t} (L${from} -> L${to})`]
          : [];
      });
  });
}

/** Files whose top-level module is in no layer. */
export function unplaced(graph: Graph, layers: Layer[]): string[] {
  const level = levels(layers);
  return [...graph.keys()].filter((f) => !level.has(moduleOf(f)));
}
