/**
 * docker-compose.yml and the Dockerfile, without a Docker engine: the compose file's structure (every
 * service with a healthcheck, every dependency waiting for a healthy service), every file it mounts or
 * builds from present (or, for the secrets an operator makes, named in docs/deploy.md), every variable it
 * requires listed in deploy/.env.example; and the gateway's healthcheck command, the image's and the
 * compose file's, run against a real gateway: healthy while /api/health answers 200, unhealthy when
 * nothing answers.
 */
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { freePort } from '../helpers/env.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { haveMosquitto, type Mosquitto, start as startMosquitto } from '../helpers/mosquitto.ts';

const ROOT = join(import.meta.dirname, '../..');
const compose = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, Service>;
  volumes: Record<string, unknown>;
};
interface Service {
  image?: string;
  build?: string;
  healthcheck?: { test: string[]; interval: string; timeout: string; retries: number; start_period?: string };
  depends_on?: Record<string, { condition: string }> | string[];
  volumes?: string[];
  environment?: Record<string, string>;
}
const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
const deployDoc = readFileSync(join(ROOT, 'docs/deploy.md'), 'utf8');

describe('docker-compose.yml', () => {
  it('gives every service a healthcheck', () => {
    const names = Object.keys(compose.services);
    expect(names).toEqual(
      expect.arrayContaining(['gateway', 'mosquitto', 'influxdb', 'grafana', 'nats-1', 'nats-2', 'nats-3']),
    );
    for (const [name, s] of Object.entries(compose.services)) {
      const h = s.healthcheck;
      expect(h, name).toBeDefined();
      expect(['CMD', 'CMD-SHELL'], name).toContain(h!.test[0]);
      expect(h!.test.length, name).toBeGreaterThan(1);
      for (const k of ['interval', 'timeout'] as const) expect(h![k], `${name} ${k}`).toMatch(/^\d+s$/);
      expect(h!.retries, name).toBeGreaterThan(0);
    }
  });

  it('starts a service only once those it depends on are healthy', () => {
    const waits: Record<string, string[]> = {};
    for (const [name, s] of Object.entries(compose.services)) {
      if (s.depends_on === undefined) continue;
      expect(Array.isArray(s.depends_on), `${name}: depends_on needs conditions`).toBe(false);
      for (const [dep, c] of Object.entries(s.depends_on as Record<string, { condition: string }>)) {
        expect(compose.services[dep], `${name} depends on ${dep}`).toBeDefined();
        expect(compose.services[dep]!.healthcheck, dep).toBeDefined();
        expect(c.condition, `${name} -> ${dep}`).toBe('service_healthy');
      }
      waits[name] = Object.keys(s.depends_on).sort();
    }
    expect(waits.gateway).toEqual(['influxdb', 'mosquitto']);
    expect(waits.grafana).toEqual(['influxdb']);
    expect(waits['gateway-cluster']).toEqual(['influxdb', 'nats-1', 'nats-2', 'nats-3']);
  });

  it('names only files that exist (or that docs/deploy.md tells the operator to make)', () => {
    let mounts = 0;
    for (const [name, s] of Object.entries(compose.services)) {
      if (s.build !== undefined) expect(existsSync(join(ROOT, s.build, 'Dockerfile')), name).toBe(true);
      for (const v of s.volumes ?? []) {
        const [source] = v.split(':') as [string];
        if (!source.startsWith('./')) {
          expect(compose.volumes, `${name}: volume ${source}`).toHaveProperty(source);
          continue;
        }
        mounts++;
        const rel = source.slice(2);
        if (existsSync(join(ROOT, rel))) continue;
        expect(
          deployDoc,
          `${name} mounts ${rel}, which is neither in the repository nor in docs/deploy.md`,
        ).toContain(rel);
      }
    }
    expect(mounts).toBeGreaterThan(10);
    // The InfluxDB setup script runs only if it is executable.
    expect(statSync(join(ROOT, 'deploy/influxdb/dbrp.sh')).mode & 0o111).not.toBe(0);
  });

  it('requires only variables that deploy/.env.example lists', () => {
    const text = readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8').replaceAll('$$', '');
    const example = readFileSync(join(ROOT, 'deploy/.env.example'), 'utf8');
    const listed = new Set(example.split('\n').map((l) => l.split('=')[0]!.trim()));
    const used = [...text.matchAll(/\$\{([A-Z_][A-Z0-9_]*)(:?[-?][^}]*)?\}/g)];
    expect(used.length).toBeGreaterThan(5);
    for (const [, name, rest] of used) if (!rest?.startsWith(':-')) expect(listed, name).toContain(name);
  });
});

/** The exec-form command of the Dockerfile's HEALTHCHECK. */
function imageHealthcheck(): string[] {
  const m = /^HEALTHCHECK [^\n]*\\\n\s+CMD (\[.*\])$/m.exec(dockerfile);
  expect(m, 'a HEALTHCHECK ... CMD [...] in the Dockerfile').not.toBeNull();
  return JSON.parse(m![1]!) as string[];
}

/** Runs a healthcheck's exec form (`node -e ...`) with HTTP_PORT set; resolves to its exit code. */
async function runCheck(cmd: string[], port: number): Promise<number> {
  expect(cmd[0]).toBe('node');
  try {
    await promisify(execFile)(process.execPath, cmd.slice(1), {
      env: { ...process.env, HTTP_PORT: String(port) },
      timeout: 30_000,
    });
    return 0;
  } catch (e) {
    return (e as { code?: number }).code ?? -1;
  }
}

describe('the gateway healthcheck against a real gateway', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway();
  });
  afterAll(async () => gw?.cleanup());

  it("the image's HEALTHCHECK: healthy while /api/health answers 200, unhealthy when nothing answers", async () => {
    const cmd = imageHealthcheck();
    expect(await runCheck(cmd, gw.httpPort)).toBe(0);
    expect(await runCheck(cmd, await freePort())).toBe(1);
  });

  it("the compose file's gateway healthcheck does the same (after compose's $$ escape)", async () => {
    const test = compose.services.gateway!.healthcheck!.test;
    expect(test[0]).toBe('CMD');
    const cmd = test.slice(1).map((a) => a.replaceAll('$$', '$'));
    expect(cmd).toEqual(imageHealthcheck());
    expect(await runCheck(cmd, gw.httpPort)).toBe(0);
    expect(await runCheck(cmd, await freePort())).toBe(1);
    expect(compose.services['gateway-cluster']!.healthcheck).toEqual(compose.services.gateway!.healthcheck);
  });
});

/** Runs the Mosquitto service's CMD-SHELL healthcheck against a broker on `port`; resolves to its exit code. */
async function runShellCheck(port: number, password: string): Promise<number> {
  const test = compose.services.mosquitto!.healthcheck!.test;
  expect(test[0]).toBe('CMD-SHELL');
  const script = test[1]!.replaceAll('$$', '$').replace('-p 1883', `-p ${port}`);
  try {
    await promisify(execFile)('sh', ['-c', script], {
      env: { ...process.env, GATEWAY_MQTT_USER: 'gateway', GATEWAY_MQTT_PASSWORD: password },
      timeout: 30_000,
    });
    return 0;
  } catch (e) {
    return (e as { code?: number }).code ?? -1;
  }
}

describe.skipIf(!haveMosquitto(['mosquitto', 'mosquitto_pub', 'mosquitto_passwd']))(
  'the Mosquitto healthcheck against a real Mosquitto with deploy/mosquitto.acl',
  () => {
    const brokers: Mosquitto[] = [];
    const dir = mkdtempSync(join(tmpdir(), 'compose-acl-'));
    chmodSync(dir, 0o755);
    const aclText = readFileSync(join(ROOT, 'deploy/mosquitto.acl'), 'utf8');
    const broker = async (acl: string) => {
      const file = join(dir, `acl-${brokers.length}`);
      writeFileSync(file, acl, { mode: 0o644 });
      const b = await startMosquitto({ users: { gateway: 'pw-gateway' }, extraConfig: [`acl_file ${file}`] });
      brokers.push(b);
      return b;
    };
    afterAll(async () => {
      for (const b of brokers) await b.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    it('is healthy when the gateway may publish, unhealthy when the ACL denies it or the login is wrong', async () => {
      expect(aclText).toMatch(/^user gateway\n(topic .*\n)*topic readwrite gateway\/chester-1\/#\n/m);
      const allowed = await broker(aclText);
      expect(await runShellCheck(allowed.port, 'pw-gateway')).toBe(0);
      expect(await runShellCheck(allowed.port, 'wrong')).not.toBe(0);
      // Before, the check published outside the gateway's topics and exited 0 all the same.
      const denied = await broker(aclText.replaceAll('gateway/chester-1/', 'gateway/another-gateway/'));
      expect(await runShellCheck(denied.port, 'pw-gateway')).not.toBe(0);
      expect(await runShellCheck(await freePort(), 'pw-gateway')).not.toBe(0);
    });
  },
);
