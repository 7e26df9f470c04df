/**
 * `npm run build`: bundles the gateway into dist/gateway.mjs. Dependencies stay in node_modules,
 * except the embedded broker (aedes) and its packet codec (mqtt-packet), which are bundled so the
 * codec's debug tracing can be left out (see quietDebug.cjs). And writes the offline report verifier,
 * dist/verify.html (the page the gateway serves at /verify.html).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build, type Plugin } from 'esbuild';
import { buildVerifyPage } from '../src/api/verifyPage.ts';

const ROOT = join(import.meta.dirname, '../..');
const BUNDLED = /^(aedes|mqtt-packet)(\/|$)/;
const IN_CODEC = /[\\/]node_modules[\\/]mqtt-packet[\\/]/;

const dependencies: Plugin = {
  name: 'dependencies',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path === 'debug' && IN_CODEC.test(args.importer))
        return { path: join(ROOT, 'gateway/build/quietDebug.cjs') };
      if (args.path.startsWith('node:') || !BUNDLED.test(args.path))
        return { path: args.path, external: true };
      return undefined;
    });
  },
};

await build({
  entryPoints: [join(ROOT, 'gateway/src/cli.ts')],
  outfile: join(ROOT, 'dist/gateway.mjs'),
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: true,
  logLevel: 'warning',
  plugins: [dependencies],
  // Bundled CommonJS (mqtt-packet) may call require() for Node built-ins.
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
});

mkdirSync(join(ROOT, 'dist'), { recursive: true });
writeFileSync(join(ROOT, 'dist/verify.html'), (await buildVerifyPage()).html);
