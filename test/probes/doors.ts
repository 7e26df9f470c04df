/**
 * Point 7: the doors. 1,000 wrong MQTT passwords for one username as fast as the gateway answers (rate,
 * log lines); a 60 KB username (the longest log line); 200 wrong API tokens (answers, rate); the security
 * headers of /, /api/health and /docs; with http.authenticateReads, what /metrics and /api/health answer
 * without a token; with MQTT TLS configured, whether the plaintext port still takes a login.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mqtt from 'mqtt';
import { baseConfig, freePort, report, startChild } from './support.ts';

const tries = Number(process.env.TRIES ?? 1000);
const dir = mkdtempSync(join(tmpdir(), 'probe-tls-'));
execFileSync(
  'openssl',
  [
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '1',
    '-subj',
    '/CN=localhost',
    '-keyout',
    join(dir, 'key.pem'),
    '-out',
    join(dir, 'cert.pem'),
  ],
  { stdio: 'ignore' },
);
const tlsPort = await freePort();
const extraMqtt = process.env.PLAINTEXT_OFF ? { plaintext: false } : {};
const gw = await startChild(
  baseConfig({
    http: { authenticateReads: true },
    mqtt: {
      tls: { certFile: join(dir, 'cert.pem'), keyFile: join(dir, 'key.pem'), port: tlsPort },
      ...extraMqtt,
    },
  }),
);
/** A login attempt's outcome: accepted, the CONNACK refusal, or the connection closed before any. */
const attempt = (username: string, password: string) =>
  new Promise<string>((resolve) => {
    const c = mqtt.connect(gw.mqttUrl, {
      clientId: 'maple-ridge/rg-1',
      username,
      password,
      reconnectPeriod: 0,
      connectTimeout: 30_000,
    });
    c.once('connect', () => {
      c.end(true);
      resolve('accepted');
    });
    c.once('error', (e) => {
      c.end(true);
      resolve(e.message);
    });
    c.once('close', () => resolve('connection closed before CONNACK'));
  });
try {
  const lines0 = gw.output().split('\n').length;
  const t0 = Date.now();
  const outcomes = new Map<string, number>();
  let done = 0;
  const deadline = t0 + Number(process.env.MAX_SECONDS ?? 120) * 1000;
  for (; done < tries && Date.now() < deadline; done++) {
    const o = (await attempt('maple-ridge/rg-1', `wrong-${done}`)).replace(/\d+(\.\d+)? ?s\b/g, 'N s');
    outcomes.set(o, (outcomes.get(o) ?? 0) + 1);
  }
  const secs = (Date.now() - t0) / 1000;
  const loginLines = gw.output().split('\n').length - lines0;
  const rightAfter = await attempt('maple-ridge/rg-1', 'pw-rg-1');
  const lines1 = gw.output();
  await attempt('u'.repeat(60 * 1024), 'x');
  await new Promise((r) => setTimeout(r, 300));
  const longest = Math.max(
    ...gw
      .output()
      .slice(lines1.length)
      .split('\n')
      .map((l) => l.length),
  );
  const apiAnswers = new Map<number, number>();
  const a0 = Date.now();
  for (let i = 0; i < 200; i++) {
    const r = await fetch(`${gw.httpUrl}/api/auth/me`, { headers: { authorization: `Bearer wrong-${i}` } });
    apiAnswers.set(r.status, (apiAnswers.get(r.status) ?? 0) + 1);
  }
  const apiSecs = (Date.now() - a0) / 1000;
  const headers = async (path: string) => {
    const r = await fetch(`${gw.httpUrl}${path}`);
    const h = r.headers;
    return (
      ['content-security-policy', 'x-frame-options', 'x-content-type-options', 'referrer-policy']
        .filter((k) => h.has(k))
        .join(',') || 'none'
    );
  };
  const open = async (path: string) => {
    const r = await fetch(`${gw.httpUrl}${path}`);
    const text = await r.text();
    return `${r.status} ${text.includes(gw.dataDir) ? '(shows the data directory)' : ''}`.trim();
  };
  const plain = await attempt('maple-ridge/rg-1', 'pw-rg-1');
  report('doors', {
    wrongPasswords: done,
    seconds: secs,
    perSecond: Math.round((done / secs) * 10) / 10,
    outcomes: Object.fromEntries(outcomes),
    logLinesForThem: loginLines,
    rightPasswordRightAfter: rightAfter,
    longestLogLineFor60KbUsername: longest,
    wrongApiTokens: Object.fromEntries(apiAnswers),
    apiSeconds: apiSecs,
    headers: {
      '/': await headers('/'),
      '/api/health': await headers('/api/health'),
      '/docs': await headers('/docs'),
    },
    authenticateReads: { '/metrics': await open('/metrics'), '/api/health': await open('/api/health') },
    plaintextLoginWithTls: plain,
  });
} finally {
  await gw.stop();
}
