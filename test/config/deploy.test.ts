import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadConfig } from '../../gateway/src/config/load.ts';

const ROOT = join(import.meta.dirname, '../..');

describe('the docker-compose deployment', () => {
  it('has a valid gateway configuration whose embedded broker would take logins over TLS only', () => {
    const c = loadConfig(join(ROOT, 'deploy/gateway.yaml'), {});
    expect(c.mqtt.plaintext).toBe(false);
    expect(c.mqtt.tls?.port).toBe(8883);
  });

  it('holds no API token: the admin token is GATEWAY_ADMIN_TOKEN, which the compose file requires', () => {
    expect(loadConfig(join(ROOT, 'deploy/gateway.yaml'), {}).auth.tokens).toEqual([]);
    const compose = readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8');
    expect(compose).toMatch(/GATEWAY_ADMIN_TOKEN: \$\{GATEWAY_ADMIN_TOKEN:\?/);
  });

  it('listens on every interface in the image, whose default configuration is the sample', () => {
    const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/^ENV .*HTTP_HOST=0\.0\.0\.0 MQTT_HOST=0\.0\.0\.0/m);
    expect(loadConfig(join(ROOT, 'deploy/gateway.yaml'), {}).http.host).toBe('0.0.0.0');
  });

  it('publishes MQTT over TLS only: the plain port stays inside the compose network', () => {
    const compose = readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8');
    expect(compose).toContain('"8883:8883"');
    expect(compose).not.toMatch(/"1883:1883"/);
    const mosquitto = readFileSync(join(ROOT, 'deploy/mosquitto.conf'), 'utf8');
    expect(mosquitto).toMatch(/^listener 8883$/m);
    expect(mosquitto).toMatch(/^certfile /m);
  });

  it('has a cluster profile: three NATS nodes with JetStream and MQTT over TLS, the gateway on all three', () => {
    const compose = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
      services: Record<string, { profiles?: string[]; image?: string; environment?: Record<string, string> }>;
    };
    const nodes = ['nats-1', 'nats-2', 'nats-3'];
    for (const n of nodes) {
      expect(compose.services[n]?.profiles).toEqual(['cluster']);
      expect(compose.services[n]?.image).toMatch(/^nats:2\.9/);
      expect(compose.services[n]?.environment?.NATS_NAME).toBe(n);
    }
    const env = compose.services['gateway-cluster']!.environment!;
    const c = loadConfig(join(ROOT, 'deploy/gateway.yaml'), env);
    expect(c.mqtt.urls).toEqual(nodes.map((n) => `mqtts://${n}:8883`));
    expect(c.mqtt.protocolVersion).toBe(4);
    const nats = readFileSync(join(ROOT, 'deploy/nats.conf'), 'utf8');
    for (const n of nodes) expect(nats).toContain(`nats-route://${n}:6222`);
    expect(nats).toMatch(/jetstream \{/);
    expect(nats).toMatch(/mqtt \{\s+port: 8883\s+tls \{/);
  });
});
