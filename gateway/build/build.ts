/**
 * `npm run build`: bundles the gateway into dist/gateway.mjs. Dependencies stay in node_modules,
 * except the embedded broker (aedes) and its packet codec (mqtt-packet), which are bundled so the
 * codec's debug tracing can be left out (see quietDebug.cjs). And writes the offline report verifier,
 * dist/verify.html (the page the gateway serves at /verify.html).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
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

// V8 holds a script's source for its life, as one byte a character while every character is Latin-1 and
// as two bytes once any is not: a comment's ellipsis in the bundle doubles its 1 MB. esbuild escapes
// strings but keeps some comments as they are, so the build refuses a bundle with such a character.
const bundle = readFileSync(join(ROOT, 'dist/gateway.mjs'), 'utf8');
const wide = bundle.search(/[\u0100-\uffff]/);
if (wide >= 0) {
  const line = bundle.slice(0, wide).split('\n').length;
  throw new Error(
    `dist/gateway.mjs line ${line} has ${JSON.stringify(bundle[wide])}, beyond Latin-1: write it in ASCII in the source`,
  );
}

mkdirSync(join(ROOT, 'dist'), { recursive: true });
writeFileSync(join(ROOT, 'dist/verify.html'), (await buildVerifyPage()).html);
