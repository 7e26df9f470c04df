/**
 * `npm run deploy:env -- [--example FILE] [--out FILE]`: writes the `.env` docker-compose.yml reads
 * (default: `.env` beside it) from `deploy/.env.example`, each secret a new random value (tools/envFile.ts),
 * readable by its owner only. Never overwrites: exits 1, changing nothing, when the file exists.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../paths.ts';
import { envFromExample } from './envFile.ts';

const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i < 0 ? undefined : process.argv[i + 1];
};
const example = arg('--example') ?? join(ROOT, 'deploy/.env.example');
const out = arg('--out') ?? join(ROOT, '.env');

const { text, generated } = envFromExample(readFileSync(example, 'utf8'));
try {
  writeFileSync(out, text, { flag: 'wx', mode: 0o600 });
  process.stdout.write(`wrote ${out} with new random values for ${generated.join(', ')}\n`);
} catch (e) {
  if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  process.stderr.write(`${out} exists already: left as it is (remove it first to make a new one)\n`);
  process.exitCode = 1;
}
