import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../gateway/src/config/load.ts';

const ROOT = join(import.meta.dirname, '../..');

describe('the docker-compose deployment', () => {
  it('has a valid gateway configuration whose embedded broker would take logins over TLS only', () => {
    const c = loadConfig(join(ROOT, 'deploy/gateway.yaml'), {});
    expect(c.mqtt.plaintext).toBe(false);
    expect(c.mqtt.tls?.port).toBe(8883);
  });

  it('publishes MQTT over TLS only: the plain port stays inside the compose network', () => {
    const compose = readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8');
    expect(compose).toContain('"8883:8883"');
    expect(compose).not.toMatch(/"1883:1883"/);
    const mosquitto = readFileSync(join(ROOT, 'deploy/mosquitto.conf'), 'utf8');
    expect(mosquitto).toMatch(/^listener 8883$/m);
    expect(mosquitto).toMatch(/^certfile /m);
  });
});
