/**
 * The dashboard's copy of the API's body schemas: `shared/src/admin.ts`, the rules' parameters
 * (`dashboardParams.ts`) and zod bundled for the browser with esbuild, served as `/schemas.js`, so the
 * dashboard's forms validate with the very schemas the API parses. Built once per process on first
 * request (tens of milliseconds), kept in memory. zod runs `jitless` there: its compiled fast path uses
 * `new Function`, which the Content-Security-Policy forbids.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { build, type Plugin } from 'esbuild';
import type { FastifyPluginAsync } from 'fastify';
import { ROOT } from '../paths.ts';

export const SCHEMAS_ENTRY = join(ROOT, 'shared/src/admin.ts');
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

/** Bundles the schemas for the browser: one ES module exporting them and `z`. */
export async function bundleSchemas(entry = SCHEMAS_ENTRY): Promise<string> {
  const imports = [...(existsSync(entry) ? [entry] : []), PARAMS_ENTRY]
    .map((f) => `export * from ${JSON.stringify(f)};\n`)
    .join('');
  const out = await build({
    stdin: {
      contents: `import ${JSON.stringify(JITLESS)};\n${imports}export { z } from 'zod';\n`,
      resolveDir: ROOT,
      loader: 'ts',
      sourcefile: 'dashboard-schemas.ts',
    },
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    legalComments: 'none',
    logLevel: 'silent',
    plugins: [jitless],
  });
  const file = out.outputFiles[0];
  if (!file) throw new Error('esbuild produced no output for the dashboard schemas');
  return file.text;
}

let bundled: Promise<string> | undefined;

export const dashboardSchemasPlugin: FastifyPluginAsync = async (app) => {
  app.get('/schemas.js', { schema: { hide: true } }, async (req, reply) => {
    bundled ??= bundleSchemas();
    let code: string;
    try {
      code = await bundled;
    } catch (e) {
      bundled = undefined;
      req.log.error({ err: e }, 'bundling the dashboard schemas failed');
      throw new Error(`bundling the dashboard schemas failed: ${(e as Error).message}`);
    }
    return reply.type('text/javascript; charset=utf-8').header('cache-control', 'no-cache').send(code);
  });
};
