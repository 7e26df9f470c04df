import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  fileCycles,
  type Graph,
  importGraph,
  type Layer,
  moduleCycles,
  relativeImports,
  unplaced,
  upwardImports,
} from './graph.ts';

/**
 * The layers of gateway/src, bottom to top: a file may import from its own layer or a lower one, never
 * from a higher one. `shared/` (the public contract, outside gateway/src) sits beneath them all.
 */
const LAYERS: Layer[] = [
  // The ground every part stands on: logging, paths, metrics, the stage interface, the login throttle.
  {
    level: 0,
    modules: ['log.ts', 'paths.ts', 'metrics.ts', 'pipeline.ts', 'loginThrottle.ts', 'deviceKey.ts'],
  },
  // Pure building blocks: the evidence ledger (Merkle tree, record bodies, checkpoints, proofs), decoders
  // and the queue of heavy jobs.
  { level: 1, modules: ['ledger/', 'decode/', 'jobs/'] },
  // The report verifier: a report's key, checkpoint and proof, and each section against the records it
  // cites (pure, bundled into verify.html).
  { level: 2, modules: ['verifier/'] },
  // The rules: each law's evaluator, its parameters and its words.
  { level: 3, modules: ['rules/'] },
  // The configuration, which composes the rules' parameter schemas.
  { level: 4, modules: ['config/'] },
  // The store: SQLite only (schema, readings, evidence log, outboxes' tables, cursors, photos, retention).
  { level: 5, modules: ['store/'] },
  // The compliance engine: alerts, deadlines, storms, inspections.
  { level: 6, modules: ['alerts/'] },
  // Enforcement: milestone notices, notices of violation, stop-work orders, on the engine's unit of work
  // through its port.
  { level: 7, modules: ['enforcement/'] },
  // What leaves the gateway from the store: notifications (routing, channels, delivery) and the outputs
  // (InfluxDB: its line protocol, durable outbox, writer).
  { level: 8, modules: ['notify/', 'outputs/'] },
  // The inputs: sign-in guard, quarantine, ingest (MQTT, serial).
  { level: 9, modules: ['loginGuard.ts', 'quarantine/', 'ingest/'] },
  // The evidence stage: publishers, start-up audit, off-box copies, citations.
  { level: 10, modules: ['evidence/'] },
  // People and the live catalogue of sites and devices.
  { level: 11, modules: ['people/', 'admin/'] },
  // What is built on all of the above: reports, imports, the fleet, Home Assistant, device metrics.
  { level: 12, modules: ['reports/', 'import/', 'fleet/', 'homeassistant/', 'deviceMetrics.ts'] },
  // The HTTP API, the health report and the optional parts it lists.
  { level: 13, modules: ['api/', 'health.ts', 'capabilities.ts'] },
  // The composition root, the command line and the tools.
  { level: 14, modules: ['main.ts', 'gateway.ts', 'cli.ts', 'tools/'] },
];

const SRC = fileURLToPath(new URL('../../gateway/src', import.meta.url));

const listed = (found: string[]): string => found.map((f) => `\n  ${f}`).join('');

describe('the import graph of gateway/src', () => {
  const graph = importGraph(SRC);

  it('reads every source file', () => {
    expect(graph.size).toBeGreaterThan(100);
    expect(graph.get('main.ts')).toContain('api/stage.ts');
  });

  it('has no cycle between files', () => {
    const found = fileCycles(graph);
    expect(found, `file cycles:${listed(found.flat())}`).toEqual([]);
  });

  it('has no cycle between top-level modules', () => {
    const found = moduleCycles(graph, LAYERS);
    expect(found, `module cycles:${listed(found.flat())}`).toEqual([]);
  });

  it('imports nothing from a higher layer', () => {
    const found = upwardImports(graph, LAYERS);
    expect(found, `upward imports:${listed(found)}`).toEqual([]);
  });

  it('places every file in a layer', () => {
    const found = unplaced(graph, LAYERS);
    expect(found, `files in no layer:${listed(found)}`).toEqual([]);
  });
});

describe('the import graph of shared/src (the public contract)', () => {
  const graph = importGraph(fileURLToPath(new URL('../../shared/src', import.meta.url)));

  it('has no cycle between files (field rows import their DTO type, never the reverse)', () => {
    expect(graph.size).toBeGreaterThan(20);
    const found = fileCycles(graph);
    expect(found, `file cycles:${listed(found.flat())}`).toEqual([]);
  });
});

describe('the import checker', () => {
  it('reads static, type-only, re-exported and dynamic imports, not those in comments', () => {
    const text = [
      "import { a } from './a.ts';",
      "import type { B } from '../b.ts';",
      "export { c } from './c/index.ts';",
      "import './side.ts';",
      "const d = await import('./d.ts');",
      "// import { e } from './e.ts';",
      "import { z } from 'zod';",
    ].join('\n');
    expect(relativeImports(text).sort()).toEqual([
      '../b.ts',
      './a.ts',
      './c/index.ts',
      './d.ts',
      './side.ts',
    ]);
  });

  it('finds a cycle, an upward import and a file in no layer in a small graph', () => {
    const layers: Layer[] = [
      { level: 0, modules: ['low/'] },
      { level: 1, modules: ['high/', 'side/'] },
    ];
    const graph: Graph = new Map([
      ['low/a.ts', ['low/b.ts']],
      ['low/b.ts', ['low/a.ts']],
      ['low/c.ts', ['high/x.ts']],
      ['high/x.ts', ['low/a.ts', 'side/y.ts', '../shared/contract.ts']],
      ['side/y.ts', ['high/z.ts']],
      ['high/z.ts', []],
      ['stray.ts', ['low/a.ts']],
    ]);
    expect(fileCycles(graph)).toEqual([['low/a.ts -> low/b.ts', 'low/b.ts -> low/a.ts']]);
    // With the layers, the import down (high -> low) is left out: the rest is what closes the cycle.
    expect(moduleCycles(graph, layers)).toEqual([
      [
        'high -> side (high/x.ts -> side/y.ts)',
        'low -> high (low/c.ts -> high/x.ts)',
        'side -> high (side/y.ts -> high/z.ts)',
      ],
    ]);
    expect(moduleCycles(graph)).toEqual([
      [
        'high -> low (high/x.ts -> low/a.ts)',
        'high -> side (high/x.ts -> side/y.ts)',
        'low -> high (low/c.ts -> high/x.ts)',
        'side -> high (side/y.ts -> high/z.ts)',
      ],
    ]);
    expect(upwardImports(graph, layers)).toEqual(['low/c.ts -> high/x.ts (L0 -> L1)']);
    expect(unplaced(graph, layers)).toEqual(['stray.ts']);
  });

  it('passes a graph that keeps to its layers', () => {
    const layers: Layer[] = [
      { level: 0, modules: ['low/'] },
      { level: 1, modules: ['high/'] },
    ];
    const graph: Graph = new Map([
      ['low/a.ts', ['low/b.ts']],
      ['low/b.ts', []],
      ['high/x.ts', ['low/a.ts', 'high/y.ts']],
      ['high/y.ts', ['low/b.ts']],
    ]);
    expect([fileCycles(graph), moduleCycles(graph), upwardImports(graph, layers)]).toEqual([[], [], []]);
    expect(unplaced(graph, layers)).toEqual([]);
  });
});
