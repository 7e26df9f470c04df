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
    expect(compose).toContain(':8883:8883"');
    expect(compose).not.toMatch(/:1883"/);
    const mosquitto = readFileSync(join(ROOT, 'deploy/mosquitto.conf'), 'utf8');
    expect(mosquitto).toMatch(/^listener 8883$/m);
    expect(mosquitto).toMatch(/^certfile /m);
  });

  it('publishes only the dashboard and MQTT over TLS, on BIND_ADDRESS (default 127.0.0.1)', () => {
    const compose = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
      services: Record<string, { ports?: string[]; profiles?: string[] }>;
    };
    const published = Object.fromEntries(
      Object.entries(compose.services)
        .filter(([, s]) => s.ports !== undefined && s.profiles === undefined)
        .map(([name, s]) => [name, s.ports]),
    );
    // biome-ignore lint/suspicious/noTemplateCurlyInString: compose's own interpolation, as the file has it
    const bind = '${BIND_ADDRESS:-127.0.0.1}';
    expect(published).toEqual({
      mosquitto: [`${bind}:8883:8883`],
      gateway: [`${bind}:8080:8080`],
    });
    for (const s of Object.values(compose.services))
      for (const p of s.ports ?? []) expect(p).toMatch(/^\$\{BIND_ADDRESS:-127\.0\.0\.1\}:\d+:\d+$/);
    // Grafana only when asked, on the same address.
    const grafana = parse(readFileSync(join(ROOT, 'deploy/compose.grafana.yml'), 'utf8'));
    expect(grafana.services.grafana.ports).toEqual([`${bind}:3000:3000`]);
    expect(readFileSync(join(ROOT, 'deploy/.env.example'), 'utf8')).toMatch(/^BIND_ADDRESS=127\.0\.0\.1$/m);
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
