/**
 * `npm run deploy:env` and the compose file's secrets: the `.env` it writes fills every secret of
 * deploy/.env.example with a new random value and keeps the rest; it never overwrites a `.env`; and
 * docker-compose.yml, interpolated as `docker compose` does, refuses the example as it is (its secrets
 * empty) and accepts the generated file.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { envFromExample, isSecretSlot } from '../../gateway/src/tools/envFile.ts';

const ROOT = join(import.meta.dirname, '../..');
const example = readFileSync(join(ROOT, 'deploy/.env.example'), 'utf8');
const composeText = readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8');

/** KEY=value lines of an env file. */
const parseEnv = (text: string): Record<string, string> =>
  Object.fromEntries(
    text
      .split('\n')
      .map((l) => /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(l))
      .filter((m) => m !== null)
      .map((m) => [m[1]!, m[2]!]),
  );

/**
 * Compose's interpolation: `${X}`, `${X:-default}` (unset or empty), `${X:?message}` (an error when unset
 * or empty), `$$` a literal dollar. Throws the first error, as `docker compose up` stops on it.
 */
function interpolate(text: string, env: Record<string, string>): string {
  return text.replace(/\$\$|\$\{([A-Z_][A-Z0-9_]*)(?:(:-|:\?)([^}]*))?\}/g, (all, name, op, arg) => {
    if (all === '$$') return '$';
    const v = env[name as string];
    if (op === ':-') return v ? v : (arg as string);
    if (op === ':?' && !v) throw new Error(`required variable ${name} is missing a value: ${arg}`);
    return v ?? '';
  });
}

const run = (args: string[]) =>
  promisify(execFile)('npx', ['tsx', 'gateway/src/tools/deployEnv.ts', ...args], {
    cwd: ROOT,
    timeout: 30_000,
  })
    .then(({ stdout, stderr }) => ({ code: 0, stdout, stderr }))
    .catch((e: { code: number; stdout: string; stderr: string }) => e);

describe('npm run deploy:env', () => {
  const dir = mkdtempSync(join(tmpdir(), 'deploy-env-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('fills every empty or change-me value and keeps the others', () => {
    let n = 0;
    const { text, generated } = envFromExample('# note\nA=\nB=town\nC=change-me-too\n', () => `s${++n}`);
    expect(text).toBe('# note\nA=s1\nB=town\nC=s2\n');
    expect(generated).toEqual(['A', 'C']);
  });

  it('writes .env with a distinct random value for each secret, readable by its owner only', async () => {
    const out = join(dir, '.env');
    const r = await run(['--out', out]);
    expect(r.code, r.stderr).toBe(0);
    const secrets = Object.entries(parseEnv(example)).filter(([, v]) => isSecretSlot(v));
    expect(secrets.map(([k]) => k)).toEqual(
      expect.arrayContaining(['GATEWAY_ADMIN_TOKEN', 'GATEWAY_MQTT_PASSWORD', 'INFLUX_TOKEN']),
    );
    const env = parseEnv(readFileSync(out, 'utf8'));
    const values = secrets.map(([k]) => env[k]!);
    for (const v of values) expect(v).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(new Set(values).size).toBe(values.length);
    // What is not a secret stays as the example has it.
    for (const [k, v] of Object.entries(parseEnv(example))) if (!isSecretSlot(v)) expect(env[k]).toBe(v);
    expect(statSync(out).mode & 0o077).toBe(0);
    // A second run makes new values.
    const again = await run(['--out', join(dir, 'second.env')]);
    expect(again.code).toBe(0);
    expect(parseEnv(readFileSync(join(dir, 'second.env'), 'utf8')).INFLUX_TOKEN).not.toBe(env.INFLUX_TOKEN);
  });

  it('never overwrites an existing .env', async () => {
    const out = join(dir, 'kept.env');
    writeFileSync(out, 'GATEWAY_ADMIN_TOKEN=mine\n');
    const r = await run(['--out', out]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/exists already/);
    expect(readFileSync(out, 'utf8')).toBe('GATEWAY_ADMIN_TOKEN=mine\n');
  });
});

describe("docker-compose.yml's secrets", () => {
  it('refuses to start with the example as it is, naming the secret to set', () => {
    expect(() => interpolate(composeText, parseEnv(example))).toThrow(/required variable \w+ .*deploy:env/);
    // Every secret of the example, alone left empty, stops it.
    const full = parseEnv(envFromExample(example).text);
    for (const [k, v] of Object.entries(parseEnv(example)))
      if (isSecretSlot(v)) expect(() => interpolate(composeText, { ...full, [k]: '' }), k).toThrow(k);
  });

  it('starts with the generated .env, publishing on BIND_ADDRESS (127.0.0.1 when unset)', () => {
    const env = parseEnv(envFromExample(example).text);
    const text = interpolate(composeText, env);
    expect(text).toContain(`INFLUX_TOKEN: ${env.INFLUX_TOKEN}`);
    expect(text).toContain('"127.0.0.1:8080:8080"');
    const open = interpolate(composeText, { ...env, BIND_ADDRESS: '0.0.0.0' });
    expect(open).toContain('"0.0.0.0:8883:8883"');
    const { BIND_ADDRESS: _, ...unset } = env;
    expect(interpolate(composeText, unset)).toContain('"127.0.0.1:8883:8883"');
  });

  it('holds no placeholder secret in the example', () => {
    expect(example).not.toMatch(/change-me/i);
  });
});
