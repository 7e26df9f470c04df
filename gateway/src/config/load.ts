import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { z } from 'zod';
import { type Config, configSchema } from './schema.ts';

/** Raised when the configuration is invalid; `problems` holds every error with its path. */
export class ConfigError extends Error {
  constructor(
    readonly source: string,
    readonly problems: string[],
  ) {
    super(`invalid configuration in ${source}:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

export function formatIssuePath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const seg of path)
    out += typeof seg === 'number' ? `[${seg}]` : out === '' ? String(seg) : `.${String(seg)}`;
  return out || '(root)';
}

function issues(err: z.ZodError): string[] {
  return err.issues.map((i) => `${formatIssuePath(i.path)}: ${i.message}`);
}

/** Environment variables that override the file (docs/configuration.md lists them). */
export function applyEnv(raw: Record<string, unknown>, env: NodeJS.ProcessEnv): Record<string, unknown> {
  const out: Record<string, unknown> = structuredClone(raw);
  const section = (k: string): Record<string, unknown> => {
    const v = out[k];
    if (v === undefined || v === null) {
      const fresh: Record<string, unknown> = {};
      out[k] = fresh;
      return fresh;
    }
    return v as Record<string, unknown>;
  };
  const num = (name: string, v: string): number | string => (/^\d+$/.test(v) ? Number(v) : `${name}=${v}`);
  if (env.GATEWAY_DATA_DIR) out.dataDir = env.GATEWAY_DATA_DIR;
  if (env.HTTP_PORT) section('http').port = num('HTTP_PORT', env.HTTP_PORT);
  if (env.MQTT_PORT) section('mqtt').port = num('MQTT_PORT', env.MQTT_PORT);
  if (env.HTTP_HOST) section('http').host = env.HTTP_HOST;
  if (env.MQTT_HOST) section('mqtt').host = env.MQTT_HOST;
  if (env.MQTT_URL) {
    // A comma-separated list names the nodes of a broker cluster (mqtt.urls).
    const urls = env.MQTT_URL.split(',')
      .map((u) => u.trim())
      .filter(Boolean);
    const mqtt = section('mqtt');
    delete mqtt.url;
    delete mqtt.urls;
    if (urls.length > 1) mqtt.urls = urls;
    else mqtt.url = urls[0];
  }
  if (env.MQTT_PROTOCOL_VERSION)
    section('mqtt').protocolVersion = num('MQTT_PROTOCOL_VERSION', env.MQTT_PROTOCOL_VERSION);
  if (env.MQTT_USERNAME) section('mqtt').username = env.MQTT_USERNAME;
  if (env.MQTT_PASSWORD) section('mqtt').password = env.MQTT_PASSWORD;
  const influx = (k: string, v: string | undefined) => {
    if (v) section('influx')[k] = v;
  };
  influx('url', env.INFLUX_URL);
  influx('token', env.INFLUX_TOKEN);
  influx('org', env.INFLUX_ORG);
  influx('bucket', env.INFLUX_BUCKET);
  influx('db', env.INFLUX_DB);
  if (env.CHROMIUM_PATH) section('reports').chromium = env.CHROMIUM_PATH;
  if (env.GATEWAY_ADMIN_TOKEN) {
    const auth = section('auth');
    const tokens = Array.isArray(auth.tokens) ? [...auth.tokens] : [];
    tokens.push({
      name: 'admin (GATEWAY_ADMIN_TOKEN)',
      role: 'admin',
      tokenSha256: createHash('sha256').update(env.GATEWAY_ADMIN_TOKEN).digest('hex'),
    });
    auth.tokens = tokens;
  }
  return out;
}

/** Validates an already-parsed object (with environment overrides applied). Throws ConfigError. */
export function parseConfig(raw: unknown, env: NodeJS.ProcessEnv = {}, source = 'config'): Config {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    throw new ConfigError(source, ['(root): must be an object']);
  const res = configSchema.safeParse(applyEnv(raw as Record<string, unknown>, env));
  if (!res.success) throw new ConfigError(source, issues(res.error));
  return res.data;
}

/** Reads a YAML or JSON file, applies the environment, validates. Throws ConfigError with every problem. */
export function loadConfig(path: string, env: NodeJS.ProcessEnv = process.env): Config {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new ConfigError(path, [`cannot read the file: ${(e as Error).message}`]);
  }
  let raw: unknown;
  try {
    raw = extname(path).toLowerCase() === '.json' ? JSON.parse(text) : parseYaml(text);
  } catch (e) {
    throw new ConfigError(path, [`cannot parse: ${(e as Error).message}`]);
  }
  return parseConfig(raw, env, path);
}
