/**
 * A first start as a stranger makes it: the gateway's own process (gateway/src/cli.ts) on the shipped
 * sample configuration (no GATEWAY_CONFIG), a fresh data directory and free ports. Its start-up output has
 * no line at error or warning level (channels left out of the sample are not faults, and no notice goes
 * to the broker before it runs), and ends with the one plain line that gives the setup link, which answers
 * the form. Nothing more is logged until the gateway is stopped. It listens on the loopback address only.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, waitFor } from '../helpers/env.ts';

const ROOT = join(import.meta.dirname, '../..');
const SETUP_LINE = /^No account yet\. Create the first administrator.*: (http:\/\/\S+\/setup\?code=[\w-]+)$/;

/** A log line as JSON, or undefined for a plain line. */
function parsed(line: string): { level: string; msg: string } | undefined {
  try {
    return JSON.parse(line) as { level: string; msg: string };
  } catch {
    return undefined;
  }
}

/** Whether a TCP connection to host:port is taken: 'connected', or the error's code. */
function connects(host: string, port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (e: Error & { code?: string }) => resolve(e.code ?? e.message));
  });
}

describe('the first start on the sample configuration', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'first-start-'));
  let child: ChildProcess;
  let out = '';
  let httpPort = 0;
  let mqttPort = 0;
  const lines = () => out.split('\n').filter((l) => l.trim() !== '');
  const exited = () => child.exitCode !== null || child.signalCode !== null;

  beforeAll(async () => {
    httpPort = await freePort();
    mqttPort = await freePort();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      GATEWAY_DATA_DIR: dataDir,
      HTTP_PORT: String(httpPort),
      MQTT_PORT: String(mqttPort),
      LOG_LEVEL: 'info',
    };
    delete env.GATEWAY_CONFIG;
    delete env.GATEWAY_ADMIN_TOKEN;
    delete env.HTTP_HOST;
    delete env.MQTT_HOST;
    child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'gateway/src/cli.ts')], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (d) => {
      out += d;
    });
    child.stderr!.on('data', (d) => {
      out += d;
    });
    await waitFor(
      () => {
        if (exited()) throw new Error(`the gateway exited:\n${out}`);
        return lines().some((l) => SETUP_LINE.test(l));
      },
      60_000,
      'the setup link in the start-up output',
    );
  });

  afterAll(async () => {
    if (child && !exited()) {
      const gone = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await gone;
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('logs nothing at error or warning level, and ends with the setup link as a plain line', () => {
    const all = lines();
    const levels = all.map((l) => parsed(l)?.level ?? 'plain');
    expect(
      all.filter((_, i) => levels[i] === 'error' || levels[i] === 'warn'),
      out,
    ).toEqual([]);
    expect(all.at(-1)).toMatch(SETUP_LINE);
    // The one plain line is the setup link; the rest is the JSON log, which does not carry the link.
    expect(levels.filter((l) => l === 'plain')).toHaveLength(1);
    expect(all.slice(0, -1).join('\n')).not.toMatch(/setup\?code=/);
    expect(all.map((l) => parsed(l)?.msg)).toContain('ready');
  });

  it('gives a link that answers the form, on the loopback address', async () => {
    const link = SETUP_LINE.exec(lines().at(-1)!)![1]!;
    expect(new URL(link).host).toBe(`127.0.0.1:${httpPort}`);
    const page = await fetch(link);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toMatch(/<form [^>]*method="post" action="\/api\/setup"/);
    expect(html).toContain('<link rel="icon" href="/favicon.svg">');
  });

  it('listens on the loopback address only', async () => {
    const other = Object.values(networkInterfaces())
      .flat()
      .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;
    expect((await fetch(`http://127.0.0.1:${httpPort}/api/health`)).status).toBe(200);
    expect(await connects('127.0.0.1', mqttPort)).toBe('connected');
    if (other) {
      expect(await connects(other, httpPort)).toBe('ECONNREFUSED');
      expect(await connects(other, mqttPort)).toBe('ECONNREFUSED');
    }
  });

  it('logs nothing after the setup link until it is stopped', async () => {
    const before = lines().length;
    const gone = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await gone;
    const after = lines()
      .slice(before)
      .map((l) => parsed(l)?.msg);
    expect(after).toEqual(['stopping', 'gateway stopped']);
    expect(child.exitCode).toBe(0);
  });
});
