import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The project's root folder (the one holding package.json), found from this module's location. */
export const ROOT = (() => {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'dashboard'))) return dir;
    const up = dirname(dir);
    if (up === dir) throw new Error('cannot find the project root (package.json beside dashboard/)');
    dir = up;
  }
})();

export const DASHBOARD_DIR = join(ROOT, 'dashboard');
export const SAMPLE_CONFIG = join(ROOT, 'gateway/config/sample.yaml');
export const VERSION: string = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version;
