/**
 * The Dockerfile, replayed without a Docker engine: its steps are parsed and run as a script would, each
 * stage in a directory of its own standing for the image's file system. COPY copies from the repository
 * (what .dockerignore leaves in the build context) or from an earlier stage; `npm ci` links the
 * repository's node_modules; `npm run build` runs the real build; `apt-get install` puts a package's
 * program where Debian puts it; `mkdir` and `chown` make and give away directories. A step the replay
 * does not know fails the test, so it cannot pass by skipping what it was meant to check. Then: the image
 * runs as an unprivileged user, its data directory exists and belongs to that user before VOLUME, the
 * Chromium the gateway looks for is installed, and the entry command names a file the build produced.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium } from '../../gateway/src/reports/pdf.ts';

const ROOT = join(import.meta.dirname, '../..');
const dockerfileText = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');

/** Where Debian's packages put the programs the image needs (`dpkg -L <package>`). */
const DEBIAN_FILES: Record<string, string[]> = { chromium: ['/usr/bin/chromium'] };

interface Step {
  op: string;
  args: string;
  line: number;
}

/** The Dockerfile's instructions: comments dropped, continued lines joined. */
function parseDockerfile(text: string): Step[] {
  const steps: Step[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const start = i;
    let l = lines[i]!;
    if (/^\s*(#|$)/.test(l)) continue;
    while (l.endsWith('\\') && i + 1 < lines.length) l = `${l.slice(0, -1)} ${lines[++i]!.trim()}`;
    const m = /^\s*([A-Z]+)\s+(.*)$/.exec(l);
    if (!m) throw new Error(`Dockerfile line ${start + 1}: not an instruction: ${l}`);
    steps.push({ op: m[1]!, args: m[2]!.trim(), line: start + 1 });
  }
  return steps;
}

/** .dockerignore's patterns as tests on a path relative to the context (the forms this repository uses). */
function ignored(path: string): boolean {
  const file = join(ROOT, '.dockerignore');
  if (!existsSync(file)) return false;
  return readFileSync(file, 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'))
    .some((p) => {
      const re = new RegExp(
        `^${p
          .replace(/[.+^${}()|[\]\\]/g, '\\$&')
          .replaceAll('**', '\u0000')
          .replaceAll('*', '[^/]*')
          .replaceAll('\u0000', '.*')}(/|$)`,
      );
      return re.test(path);
    });
}

interface Stage {
  name: string;
  dir: string;
  workdir: string;
  user: string;
  env: Record<string, string>;
  owners: Map<string, string>;
  packages: string[];
  volumes: Array<{ path: string; owner: string | undefined; existed: boolean }>;
  cmd?: string[];
}

/** Runs the Dockerfile's steps; each stage's file system is a directory under `base`. */
function replay(steps: Step[], base: string): Stage[] {
  const stages: Stage[] = [];
  const inStage = (s: Stage, p: string) => join(s.dir, posix.resolve(s.workdir, p));
  const problem = (step: Step, why: string) => new Error(`Dockerfile line ${step.line} (${step.op}): ${why}`);
  for (const step of steps) {
    const s = stages.at(-1);
    if (step.op === 'FROM') {
      const [image, as, name] = step.args.split(/\s+/);
      expect(image, 'every stage starts from the same Debian release of Node 20').toBe(
        'node:20-bookworm-slim',
      );
      if (as !== undefined) expect(as.toUpperCase()).toBe('AS');
      const dir = join(base, `stage-${stages.length}`);
      mkdirSync(dir);
      // The node image's own user, and its home.
      mkdirSync(join(dir, 'home/node'), { recursive: true });
      stages.push({
        name: name ?? String(stages.length),
        dir,
        workdir: '/',
        user: 'root',
        env: {},
        owners: new Map([['/home/node', 'node']]),
        packages: [],
        volumes: [],
      });
      continue;
    }
    if (!s) throw problem(step, 'before any FROM');
    switch (step.op) {
      case 'WORKDIR':
        s.workdir = posix.resolve(s.workdir, step.args);
        mkdirSync(join(s.dir, s.workdir), { recursive: true });
        break;
      case 'COPY': {
        const words = step.args.split(/\s+/);
        const from = words[0]!.startsWith('--from=') ? words.shift()!.slice('--from='.length) : undefined;
        const dest = words.pop()!;
        expect(words.length, `line ${step.line}: COPY names a source`).toBeGreaterThan(0);
        for (const src of words) {
          let source: string;
          if (from === undefined) {
            expect(existsSync(join(ROOT, src)), `line ${step.line}: ${src} is in the repository`).toBe(true);
            expect(ignored(src), `line ${step.line}: .dockerignore keeps ${src} out of the context`).toBe(
              false,
            );
            source = join(ROOT, src);
          } else {
            const other = stages.find((x) => x.name === from);
            expect(other, `line ${step.line}: stage ${from}`).toBeDefined();
            source = join(other!.dir, src);
            expect(existsSync(source), `line ${step.line}: ${src} exists in stage ${from}`).toBe(true);
          }
          const intoFolder = dest.endsWith('/') || words.length > 1;
          const target = inStage(s, intoFolder ? posix.join(dest, posix.basename(src)) : dest);
          mkdirSync(join(target, '..'), { recursive: true });
          cpSync(source, target, { recursive: true, verbatimSymlinks: true });
        }
        break;
      }
      case 'RUN':
        for (const part of step.args.split('&&').map((c) => c.trim())) {
          const w = part.split(/\s+/);
          if (s.user !== 'root' && /^(apt-get|mkdir|chown)$/.test(w[0]!))
            throw problem(step, `${w[0]} as ${s.user}, not root`);
          if (part === 'apt-get update' || part.startsWith('rm -rf /var/lib/apt/lists')) continue;
          if (w[0] === 'apt-get' && w.includes('install')) {
            const pkgs = w.slice(w.indexOf('install') + 1).filter((x) => !x.startsWith('-'));
            expect(w, `line ${step.line}: apt-get install -y`).toContain('-y');
            s.packages.push(...pkgs);
            for (const p of pkgs)
              for (const f of DEBIAN_FILES[p] ?? []) {
                mkdirSync(join(s.dir, posix.dirname(f)), { recursive: true });
                cpSync(process.execPath, join(s.dir, f));
              }
          } else if (w[0] === 'npm' && w[1] === 'ci') {
            expect(
              existsSync(inStage(s, 'package-lock.json')),
              `line ${step.line}: npm ci needs the lock file`,
            ).toBe(true);
            symlinkSync(join(ROOT, 'node_modules'), inStage(s, 'node_modules'));
          } else if (part === 'npm run build') {
            execFileSync('npm', ['run', 'build', '--silent'], { cwd: join(s.dir, s.workdir), stdio: 'pipe' });
          } else if (w[0] === 'mkdir' && w[1] === '-p') {
            for (const d of w.slice(2)) mkdirSync(inStage(s, d), { recursive: true });
          } else if (w[0] === 'chown' && w.length === 3) {
            const path = posix.resolve(s.workdir, w[2]!);
            if (!existsSync(join(s.dir, path))) throw problem(step, `chown of ${path}, which does not exist`);
            s.owners.set(path, w[1]!.split(':')[0]!);
          } else throw problem(step, `a step this replay does not know: ${part}`);
        }
        break;
      case 'ENV':
        for (const m of step.args.matchAll(/([A-Z_][A-Z0-9_]*)=(\S+)/g)) s.env[m[1]!] = m[2]!;
        break;
      case 'VOLUME': {
        const path = posix.resolve(s.workdir, step.args);
        s.volumes.push({ path, owner: s.owners.get(path), existed: existsSync(join(s.dir, path)) });
        break;
      }
      case 'USER':
        s.user = step.args;
        break;
      case 'CMD':
        s.cmd = JSON.parse(step.args) as string[];
        break;
      case 'EXPOSE':
      case 'HEALTHCHECK':
        break;
      default:
        throw problem(step, 'an instruction this replay does not know');
    }
  }
  return stages;
}

describe('the Dockerfile, replayed step by step without a Docker engine', () => {
  const base = mkdtempSync(join(tmpdir(), 'dockerfile-'));
  let stages: Stage[];
  let image: Stage;
  beforeAll(() => {
    stages = replay(parseDockerfile(dockerfileText), base);
    image = stages.at(-1)!;
  }, 60_000);
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it('builds in one stage and runs from another without the compilers', () => {
    expect(stages.length).toBe(2);
    expect(stages[0]!.packages).toEqual(expect.arrayContaining(['python3', 'make', 'g++']));
    expect(image.packages).not.toContain('g++');
  });

  it('runs as the unprivileged user of the node image', () => {
    expect(image.user).toBe('node');
  });

  it('makes the data directory and gives it to that user before declaring it a volume', () => {
    expect(image.volumes.length).toBe(1);
    const [v] = image.volumes;
    expect(v!.path).toBe(image.env.GATEWAY_DATA_DIR);
    expect(v!.existed, `${v!.path} made before VOLUME`).toBe(true);
    expect(v!.owner, `${v!.path} owned by the image's user before VOLUME`).toBe(image.user);
  });

  it('installs the Chromium the gateway prints PDFs with, where the gateway looks for it', () => {
    expect(image.packages).toContain('chromium');
    const found = findChromium(image.env.CHROMIUM_PATH, (p) => existsSync(join(image.dir, p)));
    expect(found, 'a Chromium the gateway finds in the image').toBeDefined();
    expect(DEBIAN_FILES.chromium).toContain(found);
  });

  it('starts a file the build produced, with the files the gateway reads at run time', () => {
    const cmd = image.cmd!;
    expect(cmd[0]).toBe('node');
    const script = cmd.slice(1).find((a) => !a.startsWith('-'))!;
    expect(script).toMatch(/\.m?js$/);
    expect(existsSync(join(image.dir, posix.resolve(image.workdir, script)))).toBe(true);
    expect(existsSync(join(stages[0]!.dir, 'app', script)), 'made by the build stage').toBe(true);
    // What the gateway reads beside its bundle: package.json (its version), the dashboard's sources
    // (bundled at start), the sample configuration, and the offline verifier page.
    for (const f of [
      'package.json',
      'dashboard/index.html',
      'dashboard/src/app.ts',
      'gateway/config/sample.yaml',
    ])
      expect(existsSync(join(image.dir, 'app', f)), f).toBe(true);
    expect(existsSync(join(image.dir, 'app/dist/verify.html'))).toBe(true);
  });
});

describe('the replay refuses what would not work in the image', () => {
  const base = mkdtempSync(join(tmpdir(), 'dockerfile-bad-'));
  afterAll(() => rmSync(base, { recursive: true, force: true }));
  const run = (text: string) => replay(parseDockerfile(text), mkdtempSync(join(base, 'x-')));

  it('records a volume made after VOLUME (or never chowned) as not the user’s', () => {
    const [s] = run('FROM node:20-bookworm-slim\nVOLUME /data\nRUN mkdir -p /data\nUSER node\n');
    expect(s!.volumes[0]).toMatchObject({ existed: false, owner: undefined });
    const [t] = run('FROM node:20-bookworm-slim\nRUN mkdir -p /data\nVOLUME /data\nUSER node\n');
    expect(t!.volumes[0]).toMatchObject({ existed: true, owner: undefined });
  });

  it('refuses a COPY of what is not in the repository, and a step it does not know', () => {
    expect(() => run('FROM node:20-bookworm-slim\nWORKDIR /app\nCOPY no-such-folder ./x\n')).toThrow(
      /no-such-folder/,
    );
    expect(() => run('FROM node:20-bookworm-slim\nRUN curl -fsSL https://example.org | sh\n')).toThrow(
      /does not know/,
    );
    expect(() => run('FROM node:20-bookworm-slim\nUSER node\nRUN mkdir -p /data\n')).toThrow(/as node/);
  });
});
