/**
 * The dashboard, bundled for the browser by esbuild in memory, once per process on first request (tens
 * of milliseconds) and kept: `/app.js` is `dashboard/src/app.ts` with what it imports from `shared/`
 * (the public contract) and its libraries; `/schemas.js` is the API's body schemas (`shared/src/admin.ts`),
 * the rules' parameters (`dashboardParams.ts`) and zod, which the dashboard's forms load when they
 * first validate, so they check with the very schemas the API parses. zod runs `jitless` there: its
 * compiled fast path uses `new Function`, which the Content-Security-Policy forbids. `/field.js` is the
 * inspection form (`dashboard/src/field.ts`), which the page loads when it first needs it; `/sw.js` is
 * the page's service worker (`dashboard/src/sw.ts`), which keeps a copy of the page for the field.
 */
import { existsSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { type BuildOptions, build, type Plugin } from 'esbuild';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { ROOT } from '../paths.ts';
import { errorBody } from './errors.ts';

export const SCHEMAS_ENTRY = join(ROOT, 'shared/src/admin.ts');
export const DASHBOARD_ENTRY = join(ROOT, 'dashboard/src/app.ts');
export const FIELD_ENTRY = join(ROOT, 'dashboard/src/field.ts');
export const WORKER_ENTRY = join(ROOT, 'dashboard/src/sw.ts');
const PARAMS_ENTRY = join(ROOT, 'gateway/src/api/dashboardParams.ts');

const JITLESS = 'dashboard:jitless';

/** A module evaluated before any schema is built: zod's flag is read when a schema is constructed. */
const jitless: Plugin = {
  name: 'jitless',
  setup(b) {
    b.onResolve({ filter: new RegExp(`^${JITLESS}$`) }, () => ({ path: JITLESS, namespace: 'virtual' }));
    b.onLoad({ filter: /.*/, namespace: 'virtual' }, () => ({
      contents: "import { z } from 'zod';\nz.config({ jitless: true });\n",
      resolveDir: ROOT,
      loader: 'js',
    }));
  },
};

const BROWSER: BuildOptions = {
  bundle: true,
  write: false,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  minify: true,
  legalComments: 'none',
  logLevel: 'silent',
};

/** One bundle's code, from esbuild's single output file. */
async function codeOf(options: BuildOptions, what: string): Promise<string> {
  const out = await build({ ...BROWSER, ...options });
  const file = out.outputFiles?.[0];
  if (!file) throw new Error(`esbuild produced no output for ${what}`);
  return file.text;
}

/** Bundles the schemas for the browser: one ES module exporting them and `z`. */
export function bundleSchemas(entry = SCHEMAS_ENTRY): Promise<string> {
  const imports = [...(existsSync(entry) ? [entry] : []), PARAMS_ENTRY]
    .map((f) => `export * from ${JSON.stringify(f)};\n`)
    .join('');
  return codeOf(
    {
      stdin: {
        contents: `import ${JSON.stringify(JITLESS)};\n${imports}export { z } from 'zod';\n`,
        resolveDir: ROOT,
        loader: 'ts',
        sourcefile: 'dashboard-schemas.ts',
      },
      plugins: [jitless],
    },
    'the dashboard schemas',
  );
}

/** Where the dashboard's output files are named from, inside esbuild (nothing is written there). */
const OUT_DIR = join(ROOT, 'dashboard-bundle');

/**
 * The dashboard's code: `app.js` and the chunks it loads, by name (`chunks/…`), and the code the page
 * loads at start (`app.js` and the chunks it imports at once, not those it imports only when a page asks,
 * such as a construction site's enforcement part).
 */
export interface DashboardBundle {
  files: Map<string, string>;
  initial: string;
}

/** Bundles the dashboard's code for the browser: ES modules, split where it imports a page lazily. */
export async function buildDashboard(entry = DASHBOARD_ENTRY): Promise<DashboardBundle> {
  const out = await build({
    ...BROWSER,
    entryPoints: { app: entry },
    splitting: true,
    absWorkingDir: ROOT,
    outdir: OUT_DIR,
    chunkNames: 'chunks/[name]-[hash]',
    metafile: true,
  });
  const files = new Map<string, string>();
  for (const f of out.outputFiles ?? []) files.set(relative(OUT_DIR, f.path).split(sep).join('/'), f.text);
  if (!files.has('app.js')) throw new Error('esbuild produced no app.js for the dashboard');
  // The page loads app.js and, at once, what it imports statically, and what those import.
  const outputs = out.metafile?.outputs ?? {};
  const seen = new Set<string>();
  const visit = (name: string) => {
    if (seen.has(name)) return;
    seen.add(name);
    const meta = outputs[relative(ROOT, join(OUT_DIR, name)).split(sep).join('/')];
    for (const i of meta?.imports ?? [])
      if (i.kind === 'import-statement') visit(relative(OUT_DIR, join(ROOT, i.path)).split(sep).join('/'));
  };
  visit('app.js');
  return { files, initial: [...seen].map((n) => files.get(n) ?? '').join('\n') };
}

/** The code the dashboard loads at start (`app.js` and the chunks it imports at once). */
export async function bundleDashboard(entry = DASHBOARD_ENTRY): Promise<string> {
  return (await buildDashboard(entry)).initial;
}

/**
 * The page's modules the inspection form shares with it: imported from `./app.js` (which exports them),
 * not bundled a second time, so the form uses the page's session, sites and store. Known by the file a
 * relative import names, wherever in dashboard/src the importing file is.
 */
const PAGE_MODULES = new Set(
  ['api.ts', 'session.ts', 'state.ts', 'waiting.ts', 'field-copy.ts', 'ui/dom.ts', 'ui/format.ts'].map((f) =>
    join(ROOT, 'dashboard/src', f),
  ),
);
const fromPage: Plugin = {
  name: 'from-page',
  setup(b) {
    b.onResolve({ filter: /^\.\.?\// }, (args) =>
      PAGE_MODULES.has(join(args.resolveDir, args.path.replace(/\.js$/, '.ts')))
        ? { path: './app.js', external: true }
        : undefined,
    );
  },
};

/** Bundles the inspection form: one ES module importing what it shares with the page from `./app.js`. */
export function bundleField(entry = FIELD_ENTRY): Promise<string> {
  return codeOf({ entryPoints: [entry], plugins: [fromPage] }, 'the inspection form');
}

/** Bundles the service worker: a classic script, as a worker registered without `type: 'module'` is. */
export function bundleWorker(entry = WORKER_ENTRY): Promise<string> {
  return codeOf({ entryPoints: [entry], format: 'iife' }, "the page's service worker");
}

/** Serves `path` from a bundle made on first request; a failed bundle is logged, answered 500 and retried. */
function serveBundle(path: string, make: () => Promise<string>, what: string): FastifyPluginAsync {
  let bundled: Promise<string> | undefined;
  return async (app) => {
    app.get(path, { schema: { hide: true } }, async (req, reply) => {
      bundled ??= make();
      let code: string;
      try {
        code = await bundled;
      } catch (e) {
        bundled = undefined;
        req.log.error({ err: e }, `bundling ${what} failed`);
        throw new Error(`bundling ${what} failed: ${(e as Error).message}`);
      }
      return reply.type('text/javascript; charset=utf-8').header('cache-control', 'no-cache').send(code);
    });
  };
}

/** Serves `/app.js` and its chunks (`/chunks/…`) from one build made on first request, as `serveBundle`. */
const serveDashboard: FastifyPluginAsync = async (app) => {
  let built: Promise<DashboardBundle> | undefined;
  const file = async (name: string, log: { error: (o: object, m: string) => void }) => {
    built ??= buildDashboard();
    try {
      return (await built).files.get(name);
    } catch (e) {
      built = undefined;
      log.error({ err: e }, 'bundling the dashboard failed');
      throw new Error(`bundling the dashboard failed: ${(e as Error).message}`);
    }
  };
  const send = (reply: FastifyReply, code: string) =>
    reply.type('text/javascript; charset=utf-8').header('cache-control', 'no-cache').send(code);
  app.get('/app.js', { schema: { hide: true } }, async (req, reply) =>
    send(reply, (await file('app.js', req.log)) ?? ''),
  );
  app.get<{ Params: { name: string } }>('/chunks/:name', { schema: { hide: true } }, async (req, reply) => {
    const code = /^[\w-]+\.js$/.test(req.params.name)
      ? await file(`chunks/${req.params.name}`, req.log)
      : undefined;
    if (code === undefined) return reply.code(404).send(errorBody('NOT_FOUND', 'No such file.'));
    return send(reply, code);
  });
};

export const dashboardBundlePlugin: FastifyPluginAsync = async (app) => {
  await app.register(serveBundle('/schemas.js', () => bundleSchemas(), 'the dashboard schemas'));
  await app.register(serveDashboard);
  await app.register(serveBundle('/field.js', () => bundleField(), 'the inspection form'));
  await app.register(serveBundle('/sw.js', () => bundleWorker(), "the page's service worker"));
};
