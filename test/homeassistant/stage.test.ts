/** The Home Assistant stage's rate bound, with a publisher that records (the broker part: ../integrations). */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { parseConfig } from '../../gateway/src/config/load.ts';
import { buildRegistry } from '../../gateway/src/config/registry.ts';
import { HomeAssistantStage, MAX_PER_FLUSH } from '../../gateway/src/homeassistant/stage.ts';
import { silentLog } from '../../gateway/src/pipeline.ts';
import type { StoredReading } from '../../gateway/src/store/readings.ts';

const config = parseConfig({
  gatewayId: 'gw',
  homeassistant: { discovery: true, publishSeconds: 60 },
  sites: Array.from({ length: 20 }, (_, s) => ({
    id: `site-${s}`,
    kind: 'construction',
    devices: Array.from({ length: 100 }, (_, d) => ({
      id: `rg-${d}`,
      kind: 'rain-gauge',
      inchesPerTip: 0.01,
    })),
  })),
});
const registry = buildRegistry(config);

describe('the Home Assistant stage', () => {
  let clock = Date.parse('2026-06-15T16:00:00Z');
  const sent: Array<{ topic: string; payload: string }> = [];
  let stage: HomeAssistantStage;
  beforeEach(() => {
    vi.useFakeTimers();
    sent.length = 0;
    stage = new HomeAssistantStage({
      settings: config.homeassistant,
      sources: {
        gatewayId: 'gw',
        timezone: 'America/New_York',
        sites: () => config.sites,
        lookup: (s, d) => registry.lookup(s, d),
        retiredDevices: () => [],
        deviceState: () => undefined,
        openDuties: () => [],
        readings: { iterate: function* () {}, counterBefore: () => undefined } as never,
      },
      publisher: {
        publish: async (topic, payload) => {
          sent.push({ topic, payload });
        },
      },
      log: silentLog,
      now: () => clock,
    });
  });
  afterEach(async () => {
    await stage.stop();
    vi.useRealTimers();
  });
  const flush = async () => {
    clock += 2000;
    await vi.advanceTimersByTimeAsync(2000);
  };

  it('publishes at most MAX_PER_FLUSH messages a flush, and everything in the end', async () => {
    await stage.start();
    await flush();
    // The configs of one device go together: a flush may pass the bound by a device's few sensors.
    expect(sent.length).toBeGreaterThan(0);
    expect(sent.length).toBeLessThanOrEqual(MAX_PER_FLUSH + 4);
    for (let i = 0; i < 40 && stage.health().pending !== 0; i++) await flush();
    expect(stage.health().pending).toBe(0);
    // 2000 gauges x 3 sensors, 20 sites x their rules' problems, 2000 device states, 20 duty states.
    const configs = sent.filter((m) => m.topic.endsWith('/config'));
    expect(configs.filter((m) => m.topic.startsWith('homeassistant/sensor/')).length).toBe(6000);
    expect(
      sent.filter((m) => m.topic.startsWith('gateway/gw/ha/') && !m.topic.endsWith('/duties')).length,
    ).toBe(2000);
  });

  it("publishes a device's state at most once per publishSeconds, however many readings it sends", async () => {
    await stage.start();
    for (let i = 0; i < 40 && stage.health().pending !== 0; i++) await flush();
    sent.length = 0;
    const reading = {
      siteId: 'site-0',
      deviceId: 'rg-0',
      values: { rainTips: 1 },
      ts: clock,
    } as StoredReading;
    for (let i = 0; i < 30; i++) {
      stage.readingsStored([{ ...reading, ts: clock }]);
      await flush(); // 2 s each: 60 s in all
    }
    const states = sent.filter((m) => m.topic === 'gateway/gw/ha/site-0/rg-0');
    expect(states.length).toBeGreaterThanOrEqual(1);
    expect(states.length).toBeLessThanOrEqual(2);
  });
});
